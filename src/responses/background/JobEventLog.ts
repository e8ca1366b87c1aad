import type {LoggedEvent, UnloggedEvent} from "../../protocol/wire.js";
import {jsonBytes} from "../../protocol/jsonBytes.js";

export type JobEventLogLimits = {
    /** Events kept; older ones are dropped first. Defaults to `defaultJobEventLogLimits.maxEvents`. */
    maxEvents?: number,
    /** Serialized bytes kept; older events are dropped first. Defaults to `defaultJobEventLogLimits.maxBytes`. */
    maxBytes?: number
};

/** Each background job's event buffer: 4096 events, 2 MiB. */
export const defaultJobEventLogLimits = {maxEvents: 4096, maxBytes: 2 * 1024 * 1024} as const satisfies JobEventLogLimits;

/** What a reader gets for a cursor: the retained events after it, or why it cannot be served. */
export type EventRead =
    | {kind: "events", events: LoggedEvent[], done: boolean}
    /** Events after the cursor were dropped from the buffer: serving the rest would skip some. */
    | {kind: "gone", firstRetained: number}
    /** The cursor names an event that was never published. */
    | {kind: "future", lastPublished: number};

type Entry = {event: LoggedEvent, bytes: number};

/** What a durable store keeps of a finished log: its retained events and how many were ever published. */
export type EventLogSnapshot = {events: LoggedEvent[], published: number};

/**
 * The events of one background response, numbered in publication order and kept in a bounded buffer,
 * so that a reader can attach late or reconnect with `starting_after` and follow live events. A reader
 * is never handed a gap: a cursor older than the buffer is reported as `gone`.
 */
export class JobEventLog {
    private readonly entries: Entry[] = [];
    private nextSequence = 0;
    private bytesUsed = 0;
    private closed = false;
    private readonly waiters = new Set<() => void>();
    public readonly maxEvents: number;
    public readonly maxBytes: number;

    public constructor(limits: JobEventLogLimits = {}) {
        this.maxEvents = limits.maxEvents ?? defaultJobEventLogLimits.maxEvents;
        this.maxBytes = limits.maxBytes ?? defaultJobEventLogLimits.maxBytes;
    }

    /** Numbers and keeps an event; the newest event is always kept, even if alone it exceeds the byte budget. */
    public append(event: UnloggedEvent): LoggedEvent {
        if (this.closed)
            throw new Error("The event log of a finished response takes no more events.");
        const numbered: LoggedEvent = {...event, sequence_number: this.nextSequence++};
        const bytes = jsonBytes(numbered);
        this.entries.push({event: numbered, bytes});
        this.bytesUsed += bytes;
        this.trim();
        this.wake();
        return numbered;
    }

    /** A finished log as it was (within today's limits): its readers resume where they left off, numbers and all. */
    public static restored(snapshot: EventLogSnapshot, limits: JobEventLogLimits = {}): JobEventLog {
        const log = new JobEventLog(limits);
        for (const event of snapshot.events) {
            const bytes = jsonBytes(event);
            log.entries.push({event, bytes});
            log.bytesUsed += bytes;
        }
        log.trim();
        log.nextSequence = snapshot.published;
        log.closed = true;
        return log;
    }

    public snapshot(): EventLogSnapshot {
        return {events: this.entries.map((entry) => entry.event), published: this.nextSequence};
    }

    /** Marks the log finished: readers that reach its end stop waiting. */
    public close(): void {
        this.closed = true;
        this.wake();
    }

    public get isClosed(): boolean {
        return this.closed;
    }

    /** Sequence number of the last published event; -1 before the first. */
    public get lastSequence(): number {
        return this.nextSequence - 1;
    }

    public get firstRetained(): number {
        return this.entries[0]?.event.sequence_number ?? this.nextSequence;
    }

    public get bytes(): number {
        return this.bytesUsed;
    }

    public get size(): number {
        return this.entries.length;
    }

    /** The retained events strictly after `after` (-1 reads from the first event). */
    public read(after: number): EventRead {
        if (after > this.lastSequence)
            return {kind: "future", lastPublished: this.lastSequence};
        if (after + 1 < this.firstRetained)
            return {kind: "gone", firstRetained: this.firstRetained};
        const start = after + 1 - this.firstRetained;
        return {kind: "events", events: this.entries.slice(start).map((entry) => entry.event), done: this.closed};
    }

    /** Resolves once an event after `after` is published, the log closes, or `signal` aborts. */
    public waitForMore(after: number, signal?: AbortSignal): Promise<void> {
        if (this.lastSequence > after || this.closed || signal?.aborted)
            return Promise.resolve();
        return new Promise((resolve) => {
            const done = () => {
                this.waiters.delete(done);
                signal?.removeEventListener("abort", done);
                resolve();
            };
            this.waiters.add(done);
            signal?.addEventListener("abort", done, {once: true});
        });
    }

    /** Drops the oldest events beyond the limits, always keeping the newest. */
    private trim(): void {
        while (this.entries.length > 1 && (this.entries.length > this.maxEvents || this.bytesUsed > this.maxBytes))
            this.bytesUsed -= this.entries.shift()!.bytes;
    }

    private wake(): void {
        for (const waiter of [...this.waiters])
            waiter();
    }
}
