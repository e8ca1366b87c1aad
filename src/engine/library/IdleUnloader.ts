import type {LibraryEntry} from "./LibraryEntry.js";

/** setTimeout's longest delay; a later deadline is looked at again then. */
const maxTimerMs = 2 ** 31 - 1;

export type IdleUnloaderOptions = {
    /** The operator's idle time (`--idle-unload-secs`); null: a model goes for idleness only when its keep_alive says so. */
    defaultIdleMs: number | null,
    entries: () => Iterable<LibraryEntry>,
    unload: (entry: LibraryEntry) => void,
    now: () => number,
    log?: (line: string) => void
};

/**
 * Unloads the library's idle models: each loaded model with no request in flight goes at its `idleUnloadAt` (its last
 * request's keep_alive, else the operator's idle time). One timer, armed for the earliest deadline and again whenever a
 * request ends (`check`), so a keep_alive works without `--idle-unload-secs` and a keep_alive of 0 unloads at once.
 */
export class IdleUnloader {
    private timer: NodeJS.Timeout | null = null;
    private stopped = false;

    public constructor(private readonly options: IdleUnloaderOptions) {}

    /** Unloads the models due now and arms the timer for the next deadline. */
    public check(): void {
        if (this.timer != null)
            clearTimeout(this.timer);
        this.timer = null;
        if (this.stopped)
            return;
        const now = this.options.now();
        let next = Infinity;
        for (const entry of this.options.entries()) {
            // A model with a request in flight is never unloaded: its deadline counts from that request's end.
            const deadline = entry.idleUnloadAt(this.options.defaultIdleMs);
            if (deadline == null)
                continue;
            if (deadline > now) {
                next = Math.min(next, deadline);
                continue;
            }
            const idleSeconds = Math.round((now - entry.lastUsedAt!) / 1000);
            const asked = entry.keepAliveMs != null ? ", as its keep_alive asked" : "";
            this.options.log?.(`models: unloading ${entry.id} (idle for ${idleSeconds} s${asked})`);
            this.options.unload(entry);
        }
        if (next !== Infinity) {
            this.timer = setTimeout(() => this.check(), Math.min(next - now, maxTimerMs));
            this.timer.unref();
        }
    }

    public stop(): void {
        this.stopped = true;
        this.check();
    }
}
