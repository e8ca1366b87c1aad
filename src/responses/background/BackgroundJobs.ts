import {GenerationAbort} from "../abortReasons.js";
import {invalidRequest, serverShuttingDown} from "../../protocol/errors.js";
import type {LoggedEvent, ResponseObject, UnloggedEvent} from "../../protocol/wire.js";
import {JobEventLog, type JobEventLogLimits} from "./JobEventLog.js";
import {jsonBytes} from "../../protocol/jsonBytes.js";
import type {JournalEntries, StoreJournal} from "../../protocol/StoreJournal.js";
import type {PreparedResponse} from "../pipeline/preparedResponse.js";
import {Emitter} from "../../protocol/Emitter.js";
import {activeStatuses, type BackgroundJob, type JobRunner, type JobStopReason} from "./backgroundJob.js";
import {jobAdmissionRefusal} from "./jobAdmission.js";
import {JobJournal} from "./JobJournal.js";
import {settleJobTerminalState} from "./jobTerminalState.js";

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
    private journal: JobJournal | null = null;
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
        const refusal = jobAdmissionRefusal(prepared.owner, bytes, this.active(), {
            maxInputBytes: this.maxInputBytes, maxActive: this.maxActive, maxActivePerOwner: this.maxActivePerOwner,
            activeBytesBudget: this.options.activeBytesBudget, generationQueueFull: this.options.generationQueueFull
        });
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
        this.journal?.dropped(job.id);
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
                this.journal?.dropped(job.id);
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
        for (const job of JobJournal.restore(entries, this.options.events))
            this.jobs.set(job.id, job);
        this.journal = new JobJournal(journal);
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
            (outcome) => {
                job.payload = {owner: job.owner, response: outcome.response, history: outcome.history,
                    ...(outcome.timings != null ? {timings: outcome.timings} : {})};
                this.finish(job, null);
            },
            (error: unknown) => this.finish(job, error)
        ).finally(() => {
            this.running--;
            this.pump();
        });
    }

    private stop(job: BackgroundJob, reason: JobStopReason): void {
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
        this.counters[settleJobTerminalState(job, error, this.deadlineSeconds)]++;
        job.phase = "finished";
        job.finishedAt = this.now();
        job.cancelDeadline();
        job.log.close();
        this.journal?.written(job);
        this.options.onFinished?.(job);
        job.settle();
        this.changed(job);
    }

    private changed(job: BackgroundJob): void {
        this.changes.emit(job);
    }
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
