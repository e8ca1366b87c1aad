import type {Response} from "express";
import {eventsExpired, invalidRequest} from "../protocol/errors.js";
import {streamErrorEvent} from "../responses/wireShapes.js";
import type {LoggedEvent} from "../protocol/wire.js";
import type {JobEventLog} from "../responses/background/JobEventLog.js";
import {SseStream} from "./sse.js";

/** Reads `starting_after` (absent: from the first event, i.e. -1). */
export function parseCursor(raw: unknown): number {
    if (raw == null || raw === "")
        return -1;
    const value = Number(raw);
    if (typeof raw !== "string" || !Number.isInteger(value) || value < 0)
        throw invalidRequest("'starting_after' must be a non-negative integer sequence number.", "starting_after");
    return value;
}

/** Refuses, before any byte is sent, a cursor the log cannot serve without a gap: 400 future, 410 gone. */
export function checkCursor(log: JobEventLog, after: number): void {
    const read = log.read(after);
    if (read.kind === "future")
        throw invalidRequest(`'starting_after' ${after} is beyond the last event published (${read.lastPublished}).`, "starting_after",
            "invalid_cursor");
    if (read.kind === "gone")
        throw eventsExpired(after, read.firstRetained);
}

/**
 * Replays a job's retained events after `after`, then follows live ones until the job's terminal event.
 * A reader that falls behind the buffer mid-stream gets a terminal `error` event instead of a gap; a socket
 * that stays unwritable for `writeTimeoutMs` is cut. While the job waits (queued, or evaluating a long prompt)
 * the stream gets a keep-alive comment every `keepAliveMs` of silence. Disconnecting stops reading only, never the job.
 */
export async function streamJobEvents(res: Response, log: JobEventLog, after: number,
    options: {writeTimeoutMs: number, keepAliveMs?: number}): Promise<void> {
    const {writeTimeoutMs} = options;
    const stream = new SseStream(res, {flushHeaders: true, keepAliveMs: options.keepAliveMs});
    const closed = new AbortController();
    res.on("close", () => closed.abort());
    let cursor = after;
    try {
        while (!stream.isClosed) {
            const read = log.read(cursor);
            if (read.kind !== "events") {
                const expired = streamErrorEvent({
                    code: "stream_events_expired", message: `This reader fell behind: events after ${cursor} are no longer retained.`
                });
                stream.send({...expired, sequence_number: log.lastSequence + 1} as LoggedEvent);
                return;
            }
            for (const event of read.events) {
                cursor = event.sequence_number;
                if (!stream.send(event) && !await drained(res, writeTimeoutMs, closed.signal)) {
                    res.destroy();
                    return;
                }
            }
            if (read.done)
                return;
            await log.waitForMore(cursor, closed.signal);
        }
    } finally {
        stream.end();
    }
}

function drained(res: Response, timeoutMs: number, closed: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
        const finish = (value: boolean) => {
            clearTimeout(timer);
            res.off("drain", onDrain);
            closed.removeEventListener("abort", onClose);
            resolve(value);
        };
        const onDrain = () => finish(true);
        const onClose = () => finish(false);
        const timer = setTimeout(() => finish(false), timeoutMs);
        res.once("drain", onDrain);
        closed.addEventListener("abort", onClose, {once: true});
    });
}
