import {Emitter} from "../../protocol/Emitter.js";
import {EngineError} from "../EngineError.js";

/** "A request released its model": what a load waiting for room, or an unload waiting for requests to end, waits for. */
export class ReleaseSignal {
    private readonly released = new Emitter<void>();

    public emit(): void {
        this.released.emit();
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
