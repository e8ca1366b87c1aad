export type Timers = {
    now(): number,
    setTimeout(callback: () => void, ms: number): unknown,
    clearTimeout(handle: unknown): void
};

const realTimers: Timers = {
    now: () => performance.now(),
    setTimeout: (callback, ms) => setTimeout(callback, ms),
    clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout)
};

/**
 * Runs `action` at most once per `intervalMs`, always with the latest state: the first call runs at once,
 * calls inside the interval collapse into one trailing run. The status bar is fed on every token, and
 * re-rendering it that often would cost the extension host more than the generation it reports.
 */
export class Throttle {
    private lastRun = Number.NEGATIVE_INFINITY;
    private pending: unknown;

    public constructor(private readonly action: () => void, private readonly intervalMs: number,
        private readonly timers: Timers = realTimers) {}

    public schedule(): void {
        if (this.pending != null)
            return;
        const wait = this.lastRun + this.intervalMs - this.timers.now();
        if (wait <= 0) {
            this.run();
            return;
        }
        this.pending = this.timers.setTimeout(() => this.run(), wait);
    }

    /** Runs now if a run is pending (for example before disposing). */
    public flush(): void {
        if (this.pending != null)
            this.run();
    }

    public dispose(): void {
        if (this.pending != null)
            this.timers.clearTimeout(this.pending);
        this.pending = undefined;
    }

    private run(): void {
        if (this.pending != null)
            this.timers.clearTimeout(this.pending);
        this.pending = undefined;
        this.lastRun = this.timers.now();
        this.action();
    }
}
