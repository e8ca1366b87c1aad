import type {JournalEntries, StoreJournal} from "../../protocol/StoreJournal.js";
import type {BackgroundJob, JobPayload, JobStopReason} from "./backgroundJob.js";
import {JobEventLog, type EventLogSnapshot, type JobEventLogLimits} from "./JobEventLog.js";

/** A finished job as its journal keeps it (`j/<id>`): what a poll, `input_items` and a stream replay read. */
type PersistedJob = {
    owner: string, payload: JobPayload, bytes: number, stopReason: JobStopReason | null, finishedAt: number, log: EventLogSnapshot
};

/**
 * Finished background jobs on the durable store: each is written once when it finishes and deleted when it is
 * forgotten or swept. Jobs still active when the process ends are never written: after a restart they are gone.
 */
export class JobJournal {
    public constructor(private readonly journal: StoreJournal) {}

    /** The finished jobs a journal kept, as records ready for polls and `starting_after` replays. */
    public static restore(entries: JournalEntries, events?: JobEventLogLimits): BackgroundJob[] {
        const jobs: BackgroundJob[] = [];
        for (const [key, value] of entries) {
            if (!key.startsWith("j/"))
                continue;
            const persisted = value as PersistedJob;
            jobs.push({
                id: persisted.payload.response.id, owner: persisted.owner, payload: persisted.payload,
                log: JobEventLog.restored(persisted.log, events), bytes: persisted.bytes,
                phase: "finished", stopReason: persisted.stopReason, finishedAt: persisted.finishedAt,
                controller: new AbortController(), settled: Promise.resolve(), settle: () => undefined, cancelDeadline: () => undefined
            });
        }
        return jobs;
    }

    /** Writes a job that just finished: its final object, input history, timings and retained events. */
    public written(job: BackgroundJob): void {
        const {owner, response, history, timings} = job.payload;
        this.journal.put(`j/${job.id}`, {
            owner, payload: {owner, response, history, ...(timings != null ? {timings} : {})},
            bytes: job.bytes, stopReason: job.stopReason, finishedAt: job.finishedAt!, log: job.log.snapshot()
        } satisfies PersistedJob);
    }

    public dropped(id: string): void {
        this.journal.del(`j/${id}`);
    }
}
