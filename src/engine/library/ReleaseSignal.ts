import {Emitter} from "../../protocol/Emitter.js";
import {EngineError} from "../EngineError.js";

/** "A request released its model": what a load waiting for room, or an unload waiting for requests to end, waits for. */
export class ReleaseSignal {
    private readonly released = new Emitter<void>();

    public emit(): void {
        this.released.emit();
    }

    /**
     * Resolves once `done()` holds, looking again at each release and at the end of `pending()` (a load in flight);
     * rejects with `aborted` when `signal` aborts first. It waits on those events only: a race on an already settled
     * member would settle at once, and the loop would spin without ever yielding to the events that end the requests.
     */
    public async until(done: () => boolean, pending: () => Promise<unknown> | null, signal?: AbortSignal): Promise<void> {
        while (!done()) {
            const running = pending();
            await (running == null ? this.next(signal) : Promise.race([this.next(signal), running.catch(() => undefined)]));
        }
    }

    /** Resolves at the next release; rejects with `aborted` when `signal` aborts first. */
    public next(signal?: AbortSignal): Promise<void> {
        return new Promise((resolve, reject) => {
            const onAbort = () => {
                off();
                reject(new EngineError("aborted", "The request was cancelled while its model waited for room to load."));
            };
            const off = this.released.on(() => {
                off();
                signal?.removeEventListener("abort", onAbort);
                resolve();
            });
            signal?.addEventListener("abort", onAbort, {once: true});
        });
    }
}
