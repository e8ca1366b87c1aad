import type {Response} from "express";

/**
 * Server-sent events, each written whole (event line, data line and blank line in one `write`):
 * some clients' parsers reset on every network read.
 */
export class SseStream {
    private closed = false;
    /** Events queued by `sendSoon`, written together at the end of this turn of the event loop. */
    private pending: string[] = [];
    private flushScheduled = false;

    public constructor(private readonly res: Response) {
        res.status(200);
        res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
        res.setHeader("Cache-Control", "no-cache, no-transform");
        res.setHeader("Connection", "keep-alive");
        res.setHeader("X-Accel-Buffering", "no");
        res.flushHeaders();
        res.socket?.setNoDelay(true);
        res.on("close", () => {
            this.closed = true;
        });
    }

    public get isClosed(): boolean {
        return this.closed || this.res.writableEnded;
    }

    /** Writes the event now; false when the socket buffer is full (the caller may wait for `drain`). */
    public send(event: {type: string}): boolean {
        this.flush();
        if (this.isClosed)
            return false;
        return this.res.write(frame(event));
    }

    /**
     * Queues the event and writes it at the end of this turn of the event loop (`setImmediate`): right after the
     * token callback has returned and the engine has been handed the next token to evaluate, so the socket write
     * overlaps that evaluation instead of delaying it. Each token still leaves as soon as it is generated; events
     * produced in the same turn share one write, each whole. (Writing inside the token callback measured
     * 1350 vs 1513 tokens/s for this, stories260K on 2 cores.)
     */
    public sendSoon(event: {type: string}): void {
        if (this.isClosed)
            return;
        this.pending.push(frame(event));
        if (!this.flushScheduled) {
            this.flushScheduled = true;
            setImmediate(() => this.flush());
        }
    }

    public end(): void {
        this.flush();
        if (!this.res.writableEnded)
            this.res.end();
        this.closed = true;
    }

    private flush(): void {
        this.flushScheduled = false;
        if (this.pending.length === 0)
            return;
        const data = this.pending.join("");
        this.pending = [];
        if (!this.isClosed)
            this.res.write(data);
    }
}

function frame(event: {type: string}): string {
    return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
