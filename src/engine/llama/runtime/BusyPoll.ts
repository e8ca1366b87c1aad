/**
 * Generations whose tokens come less than this far apart keep the event loop polling instead of sleeping (see
 * BusyPoll). Measured on a 2-core machine: stories260K (~0.4 ms a token) streamed 1.048–1.086 × node-llama-cpp's own
 * rate with polling against 0.897–0.924 × without, 4 clients 15–20 % more tokens/s in all; the synthetic SmolLM2-135M
 * (~12 ms a token) 0.974–0.980 with it against 0.983–0.984 without, so slow tokens are left alone. At 2 ms a token a
 * wake-up's ~50 µs is still a few percent; above, polling would only burn a core.
 */
export const defaultBusyPollBelowTokenMs = 2;

/** One generation's tokens, as BusyPoll follows them. */
export type TokenCadence = {
    /** Tokens were released now. */
    tokens(): void,
    /** The generation ended (finished, failed or aborted): it no longer keeps the loop polling. */
    end(): void
};

/**
 * Keeps the event loop turning, never sleeping in its poll for I/O, while some generation's tokens come fast.
 *
 * node-llama-cpp evaluates each token on a libuv pool thread, and hands it to JavaScript through the event loop: a
 * loop asleep in its poll must be woken by the kernel, once a token, and on a small VM that wake-up moves the thread
 * that does it onto the evaluating thread's core. Both cost more than a fast model's token (stories260K's is ~0.4 ms,
 * ~30–60 µs of it the server's own JavaScript). A chain of `setImmediate` turns makes the loop poll without waiting,
 * so a finished evaluation is seen at once and the JavaScript thread keeps its own core, at the price of that core
 * while the fast tokens last. Timers, sockets and every other request are served as before: each turn polls them.
 *
 * A generation that stalls while holding (waiting on something other than its next token) stops the polling after
 * `stallFactor` × the bound without tokens; its next fast tokens start it again.
 *
 * One instance per event loop user (the engine); each generation follows its tokens with `follow()`.
 */
export class BusyPoll {
    /** No tokens for this many times the bound: whoever holds is not evaluating tokens, so polling stops. */
    public static readonly stallFactor = 4;
    private holders = 0;
    /** Whether a `setImmediate` chain is running. */
    private turning = false;
    private lastTokensAt = 0;

    /** @param belowTokenMs Poll while a generation's tokens come less than this far apart; 0 never polls. */
    public constructor(private readonly belowTokenMs: number = defaultBusyPollBelowTokenMs) {}

    /** True while some generation keeps the loop polling. */
    public get polling(): boolean {
        return this.turning && this.holders > 0;
    }

    /**
     * Follows one generation: from the second release of tokens on, it holds the loop polling while the last two came
     * less than `belowTokenMs` apart, and lets go when they come slower, and at `end()`.
     */
    public follow(): TokenCadence {
        let last: number | undefined;
        let holding = false;
        let ended = false;
        const hold = (wanted: boolean) => {
            if (wanted === holding || (wanted && ended))
                return;
            holding = wanted;
            this.holders += wanted ? 1 : -1;
        };
        return {
            tokens: () => {
                const now = performance.now();
                this.lastTokensAt = now;
                if (last != null && this.belowTokenMs > 0)
                    hold(now - last < this.belowTokenMs);
                last = now;
                if (this.holders > 0 && !this.turning) {
                    this.turning = true;
                    setImmediate(this.turn);
                }
            },
            end: () => {
                ended = true;
                hold(false);
            }
        };
    }

    private readonly turn = (): void => {
        this.turning = this.holders > 0 && performance.now() - this.lastTokensAt < this.belowTokenMs * BusyPoll.stallFactor;
        if (this.turning)
            setImmediate(this.turn);
    };
}
