/**
 * Runs deferred work right after node-llama-cpp has dispatched its next evaluation batch, so that the work
 * overlaps the model's compute instead of delaying the next token.
 *
 * Why: node-llama-cpp generates one token at a time. A token is sampled and handed to JavaScript, and the next
 * evaluation is queued only when the token callback returns, then dispatched on a later `setImmediate`. Whatever
 * the callback does (building stream events, serialising them, writing to a socket) adds to every token's
 * latency. Deferred here, it runs on the JavaScript thread while the native thread evaluates the next token.
 * Measured on stories260K (2 cores): deferring the stream's work by two `setImmediate` turns cut its per-token cost
 * over a direct generation from +112 µs to +29 µs; this class ties the deferral to the dispatch itself instead of
 * to the order in which node-llama-cpp happens to queue its `setImmediate`.
 *
 * One instance per context: its `dispatchSchedule` is the context's `batching.dispatchSchedule`.
 */
export class AfterDispatch {
    private tasks: (() => void)[] = [];
    private fallbackScheduled = false;

    /**
     * node-llama-cpp's batch dispatch hook: dispatch on the next turn of the event loop, and run the deferred work
     * on the turn after. Not at once: the native evaluation starts a few promise jobs after `dispatch()` returns,
     * and a socket write queues its syscall on `process.nextTick`, which runs before those jobs.
     */
    public readonly dispatchSchedule = (dispatch: () => void): void => {
        setImmediate(() => {
            dispatch();
            setImmediate(() => this.drain());
        });
    };

    /**
     * Queues `task` to run after the next dispatch. If no evaluation is dispatched (the generation is waiting on
     * something else), it runs two event-loop turns later at the latest; generations also drain when they end.
     * Tasks must not throw.
     */
    public defer(task: () => void): void {
        this.tasks.push(task);
        if (this.fallbackScheduled)
            return;
        this.fallbackScheduled = true;
        setImmediate(() => setImmediate(() => {
            this.fallbackScheduled = false;
            this.drain();
        }));
    }

    /** Runs every queued task now, in the order queued (tasks queued meanwhile included). */
    public drain(): void {
        while (this.tasks.length > 0) {
            const tasks = this.tasks;
            this.tasks = [];
            for (const task of tasks)
                task();
        }
    }
}
