import {GenerationAbort} from "../abortReasons.js";
import {toApiError} from "../engineErrors.js";
import {inputTooLarge, invalidRequest, rateLimited, serverOverloaded, serverShuttingDown} from "../../protocol/errors.js";
import {streamErrorEvent} from "../ResponseAssembler.js";
import type {Item, LoggedEvent, ResponseObject, ResponseStatus, UnloggedEvent} from "../../protocol/wire.js";
import {JobEventLog, type EventLogSnapshot, type JobEventLogLimits} from "./JobEventLog.js";
import {jsonBytes} from "../../protocol/jsonBytes.js";
import type {JournalEntries, StoreJournal} from "../../protocol/StoreJournal.js";
import type {ResponseTimings} from "../../protocol/timings.js";
import type {PreparedResponse} from "../preparedResponse.js";
import {Emitter} from "../../protocol/Emitter.js";

export type BackgroundJobsOptions = {
    /** Queued plus running jobs at once; 0 disables background mode (400). Defaults to 64. */
    maxActive?: number,
    /** Queued plus running jobs per API key. Defaults to 4. */
    maxActivePerOwner?: number,
    /**
     * Jobs generating at once. Each waits for a sequence in the engine's own pool and queue, so this bounds
     * how many sequences background work may hold, leaving the rest to interactive requests. Defaults to 2.
     */
    workers?: number,
    /** Seconds from admission to the end of a job, queue time included, before it fails. Defaults to 300. */
    deadlineSeconds?: number,
    /** Seconds a finished job (its final object and its events) is kept for polling and stream replay. Defaults to 900. */
    retentionSeconds?: number,
    /** Finished job records kept at most (oldest dropped first). Defaults to 64. */
    maxRetained?: number,
    /** Largest serialized input snapshot (history plus response object) of one job (413 beyond). Defaults to 2 MiB. */
    maxInputBytes?: number,
    events?: JobEventLogLimits,
    /** Byte budget that active jobs share (the response store's), read at each admission. */
    activeBytesBudget?: () => number,
    /** Whether the engine's generation queue is full (503 at admission). */
    generationQueueFull?: () => boolean,
    /** How long `cancel` waits for a running job to release its sequence. Defaults to 5000 ms. */
    cancelWaitMs?: number,
    /** Called once per job when it reaches a terminal state (to store failed or cancelled objects). */
    onFinished?: (job: BackgroundJob) => void,
    /** Milliseconds clock and timer, injectable for tests. */
    now?: () => number,
    schedule?: (callback: () => void, ms: number) => () => void
};

/**
 * Background mode's limits where the options leave them unset: 64 active jobs, 4 per key, 2 workers, 300 s deadline,
 * 900 s retention, 64 finished records, 2 MiB input.
 */
export const defaultBackgroundJobLimits = {
    maxActive: 64, maxActivePerOwner: 4, workers: 2, deadlineSeconds: 300, retentionSeconds: 900, maxRetained: 64,
    maxInputBytes: 2 * 1024 * 1024
} as const satisfies BackgroundJobsOptions;

/**
 * A job's record of its response: its owner, the response object generation fills in, the history it answers and
 * the timings generation measured. A submitted job's payload is its `PreparedResponse` itself (so it sees the object
 * and timings as `run` sets them); a job restored from a journal has only these fields.
 */
export type JobPayload = {
    readonly owner: string, readonly response: ResponseObject, readonly history: readonly Item[], readonly timings?: ResponseTimings
};

/** Runs one prepared response to its end (admit, then run), publishing its events through `sink`; rejects when `signal` aborted it. */
export type JobRunner = (prepared: PreparedResponse, sink: (event: LoggedEvent) => void, signal: AbortSignal) => Promise<ResponseObject>;

type Phase = "queued" | "running" | "finished";
type StopReason = "cancel" | "deadline" | "shutdown";

export type BackgroundJob = {
    readonly id: string,
    readonly owner: string,
    readonly payload: JobPayload,
    readonly log: JobEventLog,
    readonly bytes: number,
    phase: Phase,
    stopReason: StopReason | null,
    finishedAt: number | null,
    readonly controller: AbortController,
    readonly settled: Promise<void>,
    settle: () => void,
    cancelDeadline: () => void
};

export type BackgroundJobsStats = {
    queued: number,
    running: number,
    retained: number,
    activeBytes: number,
    eventBytes: number,
    submitted: number,
    rejected: number,
    completed: number,
    failed: number,
    cancelled: number,
    expired: number
};

const activeStatuses = new Set<ResponseStatus>(["queued", "in_progress"]);

/** A finished job as its journal keeps it (`j/<id>`): what a poll, `input_items` and a stream replay read. */
type PersistedJob = {
    owner: string, payload: JobPayload, bytes: number, stopReason: StopReason | null, finishedAt: number, log: EventLogSnapshot
};

/** A job waiting for a worker, with the prepared response the worker will run. */
type QueuedJob = {readonly job: BackgroundJob, readonly prepared: PreparedResponse};

/**
 * Background responses: admission (bounded globally, per key and by bytes), a FIFO of queued jobs, a bounded
 * pool of workers, per-job deadlines, cancellation that waits for the engine to let go, and retention of
 * finished records with their event logs. Transport-free: routes attach readers to a job's `log`.
 */
export class BackgroundJobs {
    private readonly jobs = new Map<string, BackgroundJob>();
    private readonly queue: QueuedJob[] = [];
    private running = 0;
    private closed = false;
    private readonly counters = {submitted: 0, rejected: 0, completed: 0, failed: 0, cancelled: 0, expired: 0};
    private readonly changes = new Emitter<BackgroundJob>();
    private journal: StoreJournal | null = null;
    private readonly now: () => number;
    private readonly schedule: (callback: () => void, ms: number) => () => void;
    public readonly maxActive: number;
    public readonly maxActivePerOwner: number;
    public readonly workers: number;
    public readonly deadlineSeconds: number;
    public readonly retentionSeconds: number;
    public readonly maxRetained: number;
    public readonly maxInputBytes: number;

    public constructor(private readonly runner: JobRunner, private readonly options: BackgroundJobsOptions = {}) {
        this.maxActive = options.maxActive ?? defaultBackgroundJobLimits.maxActive;
        this.maxActivePerOwner = options.maxActivePerOwner ?? defaultBackgroundJobLimits.maxActivePerOwner;
        this.workers = Math.max(1, options.workers ?? defaultBackgroundJobLimits.workers);
        this.deadlineSeconds = options.deadlineSeconds ?? defaultBackgroundJobLimits.deadlineSeconds;
        this.retentionSeconds = options.retentionSeconds ?? defaultBackgroundJobLimits.retentionSeconds;
        this.maxRetained = options.maxRetained ?? defaultBackgroundJobLimits.maxRetained;
        this.maxInputBytes = options.maxInputBytes ?? defaultBackgroundJobLimits.maxInputBytes;
        this.now = options.now ?? Date.now;
        this.schedule = options.schedule ?? ((callback, ms) => {
            const timer = setTimeout(callback, ms);
            timer.unref?.();
            return () => clearTimeout(timer);
        });
    }

    public get enabled(): boolean {
        return this.maxActive > 0;
    }

    /**
     * Admits a job and queues it; returns the `queued` object to answer the create call with.
     * Refusals: 400 disabled, 413 input too large, 429 too many active jobs (total, per key, bytes), 503 queue full.
     */
    public submit(prepared: PreparedResponse): ResponseObject {
        if (!this.enabled)
            throw invalidRequest("Background mode is disabled on this server (background job limit is 0).", "background",
                "unsupported_parameter");
        if (this.closed)
            throw serverShuttingDown();
        this.sweep();

        const bytes = jsonBytes(prepared.history) + jsonBytes(prepared.response);
        const active = this.active();
        const refusal = bytes > this.maxInputBytes
            ? inputTooLarge(bytes, this.maxInputBytes)
            : active.length >= this.maxActive
                ? rateLimited(
                    `${active.length} background responses are already active (limit ${this.maxActive}); retry when one finishes.`
                )
                : active.filter((job) => job.owner === prepared.owner).length >= this.maxActivePerOwner
                    ? rateLimited(
                        `This API key already has ${this.maxActivePerOwner} active background responses; retry when one finishes.`
                    )
                    : this.options.activeBytesBudget != null
                        && active.reduce((sum, job) => sum + job.bytes, 0) + bytes > this.options.activeBytesBudget()
                        ? rateLimited("Active background responses fill the store byte budget; retry when one finishes.")
                        : this.options.generationQueueFull?.() === true
                            ? serverOverloaded()
                            : null;
        if (refusal != null) {
            this.counters.rejected++;
            throw refusal;
        }

        let settle!: () => void;
        const settled = new Promise<void>((resolve) => {
            settle = resolve;
        });
        const job: BackgroundJob = {
            id: prepared.response.id,
            owner: prepared.owner,
            payload: prepared,
            log: new JobEventLog(this.options.events),
            bytes,
            phase: "queued",
            stopReason: null,
            finishedAt: null,
            controller: new AbortController(),
            settled,
            settle,
            cancelDeadline: () => undefined
        };
        job.cancelDeadline = this.schedule(() => this.stop(job, "deadline"), this.deadlineSeconds * 1000);
        this.jobs.set(job.id, job);
        this.counters.submitted++;
        const created = this.view(job);
        job.log.append({type: "response.created", response: created});
        job.log.append({type: "response.queued", response: this.view(job)});
        this.queue.push({job, prepared});
        this.changed(job);
        this.pump();
        // The object as admitted: a worker may already have started it.
        return structuredClone(created);
    }

    /** Every job record of every owner, active and retained, for the editor's inspector (the person at the machine). */
    public all(): BackgroundJob[] {
        this.sweep();
        return [...this.jobs.values()];
    }

    /** Fires when a job is admitted, starts, finishes or is forgotten; its events are followed through `job.log`. */
    public onChange(listener: (job: BackgroundJob) => void): () => void {
        return this.changes.on(listener);
    }

    /** A job of this owner (active or retained), or undefined: other keys' jobs do not exist for them. */
    public get(owner: string, id: string): BackgroundJob | undefined {
        this.sweep();
        const job = this.jobs.get(id);
        return job != null && job.owner === owner ? job : undefined;
    }

    /** Drops a finished job's record (its response was deleted); false for an active job, which must be cancelled first. */
    public forget(job: BackgroundJob): boolean {
        if (job.phase !== "finished")
            return false;
        this.jobs.delete(job.id);
        this.journal?.del(`j/${job.id}`);
        this.changed(job);
        return true;
    }

    /** The object a poll returns: until the job is terminal, no output and zero usage. */
    public view(job: BackgroundJob): ResponseObject {
        const response = job.payload.response;
        if (!activeStatuses.has(response.status))
            return structuredClone(response);
        return {...structuredClone({...response, output: []}), usage: zeroUsage()};
    }

    /**
     * Cancels idempotently: a queued job is dropped without starting; a running one is aborted and reported
     * `cancelled` only once its runner returned (the engine released the sequence), waiting up to `cancelWaitMs`;
     * past that the job is still `in_progress` and the caller polls. A finished job is returned as it is.
     */
    public async cancel(job: BackgroundJob): Promise<ResponseObject> {
        if (job.phase !== "finished") {
            this.stop(job, "cancel");
            await Promise.race([job.settled, delay(this.options.cancelWaitMs ?? 5000)]);
        }
        return this.view(job);
    }

    /** Stops admission, cancels queued and running jobs and waits for the workers (up to `waitMs`). */
    public async shutdown(waitMs = 10_000): Promise<boolean> {
        this.closed = true;
        const active = this.active();
        for (const job of active)
            this.stop(job, "shutdown");
        const all = Promise.all(active.map((job) => job.settled)).then(() => true);
        return Promise.race([all, delay(waitMs).then(() => false)]);
    }

    public stats(): BackgroundJobsStats {
        this.sweep();
        const jobs = [...this.jobs.values()];
        return {
            queued: jobs.filter((job) => job.phase === "queued").length,
            running: jobs.filter((job) => job.phase === "running").length,
            retained: jobs.filter((job) => job.phase === "finished").length,
            activeBytes: this.active().reduce((sum, job) => sum + job.bytes, 0),
            eventBytes: jobs.reduce((sum, job) => sum + job.log.bytes, 0),
            ...this.counters
        };
    }

    /** Drops finished records past their retention or beyond the retained count, oldest first. */
    public sweep(): void {
        const now = this.now();
        const finished = [...this.jobs.values()].filter((job) => job.phase === "finished")
            .sort((a, b) => a.finishedAt! - b.finishedAt!);
        finished.forEach((job, index) => {
            if (job.finishedAt! + this.retentionSeconds * 1000 <= now || finished.length - index > this.maxRetained) {
                this.jobs.delete(job.id);
                this.journal?.del(`j/${job.id}`);
                this.counters.expired++;
            }
        });
    }

    /**
     * Restores the finished jobs a journal kept (their final objects and retained events, for polls and
     * `starting_after` replays), then writes each job that finishes from now on and drops those swept.
     * Jobs that were still active when the process ended were never written: they are gone.
     */
    public persistTo(journal: StoreJournal, entries: JournalEntries): void {
        for (const [key, value] of entries) {
            if (!key.startsWith("j/"))
                continue;
            const persisted = value as PersistedJob;
            const job: BackgroundJob = {
                id: persisted.payload.response.id, owner: persisted.owner, payload: persisted.payload,
                log: JobEventLog.restored(persisted.log, this.options.events), bytes: persisted.bytes,
                phase: "finished", stopReason: persisted.stopReason, finishedAt: persisted.finishedAt,
                controller: new AbortController(), settled: Promise.resolve(), settle: () => undefined, cancelDeadline: () => undefined
            };
            this.jobs.set(job.id, job);
        }
        this.journal = journal;
        this.sweep();
    }

    private active(): BackgroundJob[] {
        return [...this.jobs.values()].filter((job) => job.phase !== "finished");
    }

    private pump(): void {
        while (this.running < this.workers && this.queue.length > 0)
            this.start(this.queue.shift()!);
    }

    private start({job, prepared}: QueuedJob): void {
        job.phase = "running";
        this.running++;
        this.changed(job);
        // The runner re-emits created/queued when it starts: the log published them at admission already.
        const sink = (event: LoggedEvent) => {
            if (event.type !== "response.created" && event.type !== "response.queued" && !job.log.isClosed)
                job.log.append(withoutSequence(event));
        };
        this.runner(prepared, sink, job.controller.signal).then(
            () => this.finish(job, null),
            (error: unknown) => this.finish(job, error)
        ).finally(() => {
            this.running--;
            this.pump();
        });
    }

    private stop(job: BackgroundJob, reason: StopReason): void {
        if (job.phase === "finished")
            return;
        job.stopReason ??= reason;
        if (job.phase === "queued") {
            this.queue.splice(this.queue.findIndex((queued) => queued.job === job), 1);
            this.finish(job, null);
        } else
            job.controller.abort(new GenerationAbort(reason === "cancel" ? "cancelled" : reason, `background response stopped: ${reason}`));
    }

    /** Publishes the terminal state once the runner let go of everything. */
    private finish(job: BackgroundJob, error: unknown): void {
        if (job.phase === "finished")
            return;
        const response = job.payload.response;
        const stoppedEarly = job.stopReason != null && (error != null || activeStatuses.has(response.status));
        if (stoppedEarly && job.stopReason !== "deadline") {
            setTerminal(response, "cancelled", null);
            job.log.append(streamErrorEvent({code: "response_cancelled", message: "The response was cancelled."}));
            this.counters.cancelled++;
        } else if (stoppedEarly || error != null || activeStatuses.has(response.status)) {
            const failure = job.stopReason === "deadline"
                ? {code: "job_timeout", message: `The background response did not finish within ${this.deadlineSeconds} s.`}
                : describe(error);
            setTerminal(response, "failed", failure);
            job.log.append({type: "response.failed", response: structuredClone(response)});
            this.counters.failed++;
        } else if (response.status === "failed")
            this.counters.failed++;
        else
            this.counters.completed++;
        job.phase = "finished";
        job.finishedAt = this.now();
        job.cancelDeadline();
        job.log.close();
        const {owner, response: finalResponse, history, timings} = job.payload;
        this.journal?.put(`j/${job.id}`, {
            owner, payload: {owner, response: finalResponse, history, ...(timings != null ? {timings} : {})},
            bytes: job.bytes, stopReason: job.stopReason, finishedAt: job.finishedAt, log: job.log.snapshot()
        } satisfies PersistedJob);
        this.options.onFinished?.(job);
        job.settle();
        this.changed(job);
    }

    private changed(job: BackgroundJob): void {
        this.changes.emit(job);
    }
}

function setTerminal(response: ResponseObject, status: "cancelled" | "failed", error: {code: string, message: string} | null): void {
    response.status = status;
    response.output = [];
    response.usage = null;
    response.error = error;
    response.completed_at = null;
}

function describe(error: unknown): {code: string, message: string} {
    const apiError = toApiError(error);
    return {code: apiError.code ?? "server_error", message: apiError.message};
}

function zeroUsage(): NonNullable<ResponseObject["usage"]> {
    return {
        input_tokens: 0, input_tokens_details: {cached_tokens: 0}, output_tokens: 0, output_tokens_details: {reasoning_tokens: 0},
        total_tokens: 0
    };
}

function withoutSequence(event: LoggedEvent): UnloggedEvent {
    const {sequence_number: _ignored, ...rest} = event;
    return rest;
}

function delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        timer.unref?.();
    });
}
