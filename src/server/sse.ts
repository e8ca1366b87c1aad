import type {Response} from "express";

/**
 * Server-sent events, each written whole (event line, data line and blank line in one `write`):
 * some clients' parsers reset on every network read. Events written in the same tick leave in one
 * socket write (Node corks a chunked response until the next tick).
 */
export class SseStream {
    private closed = false;

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
        if (this.isClosed)
            return false;
        return this.res.write(frame(event));
    }

    public end(): void {
        if (!this.res.writableEnded)
            this.res.end();
        this.closed = true;
    }
}

function frame(event: {type: string}): string {
    return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
