import type {Response} from "express";

export type SseStreamOptions = {
    /**
     * Send the headers now, for a stream whose first event may be long in coming (a reader resuming a job);
     * defaults to false: they leave with the first event, or with the first keep-alive.
     */
    flushHeaders?: boolean,
    /** After this many ms with nothing sent, a keep-alive goes out (0 or absent: none). */
    keepAliveMs?: number,
    /**
     * Once the first event is out, keep-alives are OpenAI's `keepalive` events, numbered in the stream's sequence,
     * instead of comments. Only for a stream nobody resumes by sequence number (a foreground response): the events
     * after a keep-alive leave renumbered by the keep-alives before them, so the wire sequence stays 0, 1, 2, ...
     */
    keepAliveEvents?: boolean,
    /**
     * Once the first event is out, keep-alives are this event instead of comments: Anthropic's `ping`, which its
     * clients expect while a long prompt is evaluated. For a stream whose events carry no sequence number.
     */
    keepAliveEvent?: SseEvent,
    /**
     * The shortest time between two writes of deltas (events whose type ends in `.delta`), in ms: deltas that come
     * sooner after one leave together when it has passed. Other events are never held back, and the first delta of a
     * stream leaves at once. Defaults to `defaultMinWriteIntervalMs`; 0 writes once per event-loop turn.
     */
    minWriteIntervalMs?: number,
    /**
     * A reader that stops reading: once a write finds the socket full, it has this many ms to take bytes again (a
     * `drain`; after the end, to take the rest of the body) before the connection is cut, which aborts the generation
     * feeding the stream and frees its sequence. A slow but live reader drains in time and gets every event. Absent or
     * 0: never cut.
     */
    writeTimeoutMs?: number
};

/**
 * Two writes of deltas are at least this far apart: half a frame of a 60 Hz screen, so no reader sees the grouping. A
 * model writing a token every 8 ms or slower (every model people run on a CPU, and most on a GPU) sees each delta
 * leave as it is generated, the same turn; a faster stream has its deltas leave in groups, at most 8 ms late, and
 * its first delta at once. Why: each write is a syscall that also wakes the client's process, on the JavaScript
 * thread that must sample the next token, and the client's reading takes a core the evaluation may need. Measured on
 * stories260K (2 cores, ~2,500 tokens/s, the client a separate process), streamed tokens/s against node-llama-cpp
 * alone: 0.82 with 2 ms, 0.84–0.86 in five runs with 8 ms (`npm run bench -- --only 2`); the client's CPU per token
 * fell from 48 µs to 24 µs.
 */
export const defaultMinWriteIntervalMs = 8;

/** An event as it is written: its type, and its place in the stream when it has one. */
export type SseEvent = {type: string, sequence_number?: number};

/** An SSE comment: every parser skips it, and it resets the idle timers of clients and proxies. */
const keepAliveComment = ": keep-alive\n\n";

/**
 * Server-sent events, each written whole (event line, data line and blank line in one `write`):
 * some clients' parsers reset on every network read. The events written in one turn of the event loop
 * leave together at the start of the next (the response is corked until then), the headers with the
 * first ones unless `flushHeaders` sends them at once: a response's opening events, and its closing
 * ones with the end of the body, wake the client once instead of once per event (each wake-up of
 * another process costs 0.1–0.3 ms on a small VM). A token's delta leaves as it is generated, unless the last
 * write of a delta is under `minWriteIntervalMs` old: then it leaves when that has passed, with the deltas that
 * followed, or with the next event that is not a delta if that comes first.
 *
 * Keep-alive: a long prompt evaluation (or a wait for a sequence) sends nothing for minutes, and clients
 * give up on an idle body (Node's fetch after 300 s of no bytes; Codex after 300 s of no parsed event, so a
 * comment, which its SSE parser drops, does not count for it). A ticker sends a keep-alive when a whole
 * interval passed with no event, so the longest silence is under two intervals: a comment, or with
 * `keepAliveEvents` and once the stream has begun, OpenAI's `keepalive` event (the OpenAI SDKs know it,
 * Codex and other clients skip event types they do not know). Before the first event it is always a comment:
 * a client's stream helper expects `response.created` first. The cost on the token path is two stores per
 * event (and a copy of each event only after a keep-alive event shifted the numbering); a keep-alive is never
 * written while the response is corked (an event was sent this turn), and each event is one `write`, so a
 * keep-alive can never land inside an event.
 */
export class SseStream {
    private closed = false;
    private corked = false;
    private opened = false;
    /** An event went out since the last tick: the stream is not idle. */
    private sentSinceTick = false;
    private readonly keepAlive: NodeJS.Timeout | undefined;
    private readonly keepAliveEvents: boolean;
    private readonly keepAliveEvent: SseEvent | undefined;
    /** An event (not a keep-alive) was written. */
    private eventSent = false;
    /** The wire number of the last event written (-1: none yet). */
    private lastSequence = -1;
    /** Keep-alive events inserted so far: how far the wire numbers run ahead of the events' own. */
    private inserted = 0;
    private readonly minWriteIntervalMs: number;
    /** `performance.now()` of the last write that carried a delta. */
    private lastDeltaWriteAt = -Infinity;
    /** What is held (corked) includes a delta. */
    private heldDelta = false;
    /** Set while what is held waits for the write interval (see `holdUntilNextTurn`). */
    private heldTimer: NodeJS.Timeout | undefined;
    private readonly writeTimeoutMs: number;
    /** Set while the socket is full: when it fires, the reader is cut. */
    private stalledTimer: NodeJS.Timeout | undefined;

    public constructor(private readonly res: Response, options: SseStreamOptions = {}) {
        if (options.flushHeaders) {
            this.open();
            res.flushHeaders();
        }
        res.on("close", () => {
            this.closed = true;
            this.stopKeepAlive();
            clearTimeout(this.stalledTimer);
        });
        if (options.keepAliveMs != null && options.keepAliveMs > 0) {
            this.keepAlive = setInterval(() => this.tick(), options.keepAliveMs);
            // A stream waiting on a long prefill must not keep the process from exiting.
            this.keepAlive.unref();
        }
        this.keepAliveEvents = options.keepAliveEvents ?? false;
        this.keepAliveEvent = options.keepAliveEvent;
        this.minWriteIntervalMs = options.minWriteIntervalMs ?? defaultMinWriteIntervalMs;
        this.writeTimeoutMs = options.writeTimeoutMs ?? 0;
    }

    public get isClosed(): boolean {
        return this.closed || this.res.writableEnded;
    }

    /** True once the status and headers are committed (an event or a keep-alive was written): errors then go in the stream. */
    public get started(): boolean {
        return this.opened;
    }

    /** Writes the event (it leaves with this turn's others); false when the buffer is full (the caller may wait for `drain`). */
    public send(event: SseEvent): boolean {
        if (!this.beginWrite(event.type.endsWith(".delta") || event.type === "content_block_delta"))
            return false;
        this.eventSent = true;
        const wire = this.inserted === 0 || event.sequence_number == null ? event
            : {...event, sequence_number: event.sequence_number + this.inserted};
        this.lastSequence = wire.sequence_number ?? this.lastSequence;
        return this.write(frame(wire));
    }

    /**
     * Writes an unnamed event, a `data:` line alone (Chat Completions' chunks and its closing `[DONE]`, which clients
     * parse only without an `event:` line); `delta` says whether it may be grouped with the deltas after it.
     */
    public sendData(data: string, delta: boolean): boolean {
        if (!this.beginWrite(delta))
            return false;
        return this.write(`data: ${data}\n\n`);
    }

    /** Opens the stream if needed and corks it for this turn; false when it is closed. */
    private beginWrite(delta: boolean): boolean {
        if (this.isClosed)
            return false;
        this.sentSinceTick = true;
        if (!this.opened)
            this.open();
        this.holdUntilNextTurn(delta);
        return true;
    }

    public end(): void {
        this.stopKeepAlive();
        clearTimeout(this.heldTimer);
        if (!this.res.writableEnded) {
            this.res.end();
            // The rest of the body still waits for a reader: it too has the write timeout to take it.
            if (!this.res.writableFinished && !this.closed)
                this.cutUnless("finish");
        }
        this.closed = true;
    }

    /** Writes, and starts the write timeout when the socket is full. */
    private write(chunk: string): boolean {
        const written = this.res.write(chunk);
        if (!written)
            this.cutUnless("drain");
        return written;
    }

    /** Cuts the connection unless `event` (the socket took bytes again) comes within the write timeout. */
    private cutUnless(event: "drain" | "finish"): void {
        if (this.writeTimeoutMs <= 0 || this.stalledTimer != null)
            return;
        const res = this.res;
        const taken = () => {
            clearTimeout(this.stalledTimer);
            this.stalledTimer = undefined;
        };
        res.once(event, taken);
        this.stalledTimer = setTimeout(() => {
            res.off(event, taken);
            this.stalledTimer = undefined;
            res.destroy();
        }, this.writeTimeoutMs);
        this.stalledTimer.unref();
    }

    /** The status and headers, set when the first bytes go out, so a request refused before then keeps its own status. */
    private open(): void {
        this.opened = true;
        const res = this.res;
        res.status(200);
        res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
        res.setHeader("Cache-Control", "no-cache, no-transform");
        res.setHeader("Connection", "keep-alive");
        res.setHeader("X-Accel-Buffering", "no");
        res.socket?.setNoDelay(true);
    }

    private tick(): void {
        if (this.isClosed) {
            this.stopKeepAlive();
            return;
        }
        if (this.sentSinceTick) {
            this.sentSinceTick = false;
            return;
        }
        if (!this.opened)
            this.open();
        if (this.keepAliveEvent != null && this.eventSent) {
            this.write(frame(this.keepAliveEvent));
            return;
        }
        if (this.keepAliveEvents && this.lastSequence >= 0) {
            this.inserted++;
            this.write(frame({type: "keepalive", sequence_number: ++this.lastSequence}));
            return;
        }
        this.write(keepAliveComment);
    }

    /** Stops the ticker without ending the response (a request refused before its stream started answers with its own status). */
    public stopKeepAlive(): void {
        if (this.keepAlive != null)
            clearInterval(this.keepAlive);
    }

    /**
     * Corks the response until the next turn, or, for a delta, until `minWriteIntervalMs` after the last write that
     * carried one if that is later. An event that is not a delta sends what is held the next turn.
     */
    private holdUntilNextTurn(delta: boolean): void {
        if (this.corked) {
            this.heldDelta ||= delta;
            if (!delta && this.heldTimer != null) {
                clearTimeout(this.heldTimer);
                this.heldTimer = undefined;
                setImmediate(this.writeHeld);
            }
            return;
        }
        this.corked = true;
        this.heldDelta = delta;
        this.res.cork();
        if (delta && this.deltaWriteWait() > 0)
            this.writeHeldWhenDue();
        else
            setImmediate(this.writeHeld);
    }

    /** How long until a delta may be written again, in ms (0 or less: now). */
    private deltaWriteWait(): number {
        return this.lastDeltaWriteAt + this.minWriteIntervalMs - performance.now();
    }

    /**
     * Writes what is held once the write interval has passed, waiting again if its timer fired early: a timer counts
     * from the event loop's clock, read when the loop last woke, so it can fire up to that turn's age too soon.
     */
    private readonly writeHeldWhenDue = (): void => {
        const wait = this.deltaWriteWait();
        if (wait > 0)
            this.heldTimer = setTimeout(this.writeHeldWhenDue, wait);
        else
            this.writeHeld();
    };

    private readonly writeHeld = (): void => {
        if (!this.corked)
            return;
        this.corked = false;
        this.heldTimer = undefined;
        if (this.heldDelta)
            this.lastDeltaWriteAt = performance.now();
        this.res.uncork();
    };
}

function frame(event: SseEvent): string {
    return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
