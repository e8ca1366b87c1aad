/** How often a model process says it is alive (`heartbeat`), whatever it is doing. */
export const heartbeatIntervalMs = 1000;

/**
 * How long a model process may be silent before it is taken for hung and killed. Its JavaScript stays free while
 * llama.cpp loads, evaluates and samples (node-llama-cpp runs those on native threads), so a heartbeat is missed only
 * when the process is stopped or blocked: 10 heartbeats is far past any pause seen in a live one.
 */
export const defaultSilenceLimitMs = 10_000;

/**
 * Watches one model process's messages: when none has come for `silenceLimitMs`, `onSilent` runs (once). A tick that
 * comes late (the server's own event loop was held) restarts the count instead: the messages that came meanwhile are
 * queued behind the tick, and a process cannot be blamed for a silence the server did not listen through.
 */
export class ProcessWatchdog {
    private lastHeard = performance.now();
    private lastTick = performance.now();
    private readonly timer: NodeJS.Timeout;

    public constructor(private silenceLimitMs: number, private readonly onSilent: (silentMs: number) => void) {
        this.timer = setInterval(() => this.tick(), heartbeatIntervalMs);
        // It never holds the server's process open by itself.
        this.timer.unref();
    }

    /** A message came from the process. */
    public heard(): void {
        this.lastHeard = performance.now();
    }

    /** From now on a shorter silence is enough (a process asked to end has nothing left to be busy with but that). */
    public tighten(silenceLimitMs: number): void {
        this.silenceLimitMs = Math.min(this.silenceLimitMs, silenceLimitMs);
    }

    public stop(): void {
        clearInterval(this.timer);
    }

    private tick(): void {
        const now = performance.now();
        const late = now - this.lastTick > 2 * heartbeatIntervalMs;
        this.lastTick = now;
        if (late) {
            this.lastHeard = now;
            return;
        }
        const silentMs = now - this.lastHeard;
        if (silentMs >= this.silenceLimitMs) {
            this.stop();
            this.onSilent(silentMs);
        }
    }
}
