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

    /**
     * `work` (another request's load or unload of the model this one waits for), or `aborted` as soon as `signal` fires:
     * a request whose client left does not wait for a load it did not start (a stopped model process made that 10 s).
     */
    public static awaitUnlessAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
        if (signal == null)
            return work;
        if (signal.aborted)
            return Promise.reject(cancelledWaiting());
        return new Promise<T>((resolve, reject) => {
            const onAbort = () => reject(cancelledWaiting());
            signal.addEventListener("abort", onAbort, {once: true});
            work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
        });
    }

    /** Resolves at the next release; rejects with `aborted` when `signal` aborts first. */
    public next(signal?: AbortSignal): Promise<void> {
        return new Promise((resolve, reject) => {
            const onAbort = () => {
                off();
                reject(cancelledWaiting());
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

function cancelledWaiting(): EngineError {
    return new EngineError("aborted", "The request was cancelled while its model waited for room to load.");
}
