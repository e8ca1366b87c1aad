import type {Response} from "express";

/**
 * Server-sent events, each written whole (event line, data line and blank line in one `write`):
 * some clients' parsers reset on every network read. The events written in one turn of the event loop
 * leave together at the start of the next (the response is corked until then), the headers with the
 * first ones unless `flushHeaders` sends them at once: a response's opening events, and its closing
 * ones with the end of the body, wake the client once instead of once per event (each wake-up of
 * another process costs 0.1–0.3 ms on a small VM). A token's delta still leaves as it is generated.
 */
export class SseStream {
    private closed = false;
    private corked = false;

    /**
     * @param options.flushHeaders send the headers now, for a stream whose first event may be long in coming
     * (a reader resuming a job); defaults to false (a new response's events start at once).
     */
    public constructor(private readonly res: Response, options: {flushHeaders?: boolean} = {}) {
        res.status(200);
        res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
        res.setHeader("Cache-Control", "no-cache, no-transform");
        res.setHeader("Connection", "keep-alive");
        res.setHeader("X-Accel-Buffering", "no");
        if (options.flushHeaders)
            res.flushHeaders();
        res.socket?.setNoDelay(true);
        res.on("close", () => {
            this.closed = true;
        });
    }

    public get isClosed(): boolean {
        return this.closed || this.res.writableEnded;
    }

    /** Writes the event (it leaves with this turn's others); false when the buffer is full (the caller may wait for `drain`). */
    public send(event: {type: string}): boolean {
        if (this.isClosed)
            return false;
        this.holdUntilNextTurn();
        return this.res.write(frame(event));
    }

    public end(): void {
        if (!this.res.writableEnded)
            this.res.end();
        this.closed = true;
    }

    private holdUntilNextTurn(): void {
        if (this.corked)
            return;
        this.corked = true;
        this.res.cork();
        setImmediate(() => {
            this.corked = false;
            this.res.uncork();
        });
    }
}

function frame(event: {type: string}): string {
    return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
