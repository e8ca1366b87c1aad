import type {BackgroundJobs} from "../../responses/background/BackgroundJobs.js";
import type {BackgroundJob} from "../../responses/background/backgroundJob.js";
import type {LoggedEvent} from "../../protocol/wire.js";
import type {JobEventView, JobSummary} from "./shared/inspectorProtocol.js";
import type {InspectorJobs} from "./inspectorSources.js";
import {Throttle} from "../util/Throttle.js";
import {Emitter} from "../../protocol/Emitter.js";

/** A job emits an event per token: listeners hear about a job at most this often. */
const notifyIntervalMs = 150;

/**
 * The inspector's view of the host's background jobs: every owner's jobs, their event logs, cancel.
 * Each job's log is followed as it grows (awaiting the log, no polling), and notifications are throttled per job.
 */
export class BackgroundJobsView implements InspectorJobs {
    private readonly changes = new Emitter<string>();
    private readonly followed = new Map<string, Throttle>();
    private readonly unsubscribe: () => void;
    private readonly stopFollowing = new AbortController();

    public constructor(private readonly jobs: BackgroundJobs) {
        this.unsubscribe = jobs.onChange((job) => {
            this.follow(job);
            this.notify(job.id);
        });
        for (const job of jobs.all())
            this.follow(job);
    }

    public list(): JobSummary[] {
        return this.jobs.all()
            .map((job) => ({
                id: job.id,
                status: job.payload.response.status,
                createdAt: job.payload.response.created_at,
                model: job.payload.response.model,
                eventCount: job.log.lastSequence + 1,
                cancellable: job.phase !== "finished",
                timings: job.payload.timings ?? null
            }))
            .sort((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id));
    }

    public events(id: string): JobEventView[] {
        const job = this.find(id);
        if (job == null)
            return [];
        const read = job.log.read(job.log.firstRetained - 1);
        return read.kind === "events" ? read.events.map(describeEvent) : [];
    }

    public async cancel(id: string): Promise<boolean> {
        const job = this.find(id);
        if (job == null || job.phase === "finished")
            return false;
        const response = await this.jobs.cancel(job);
        return response.status === "cancelled";
    }

    public onChange(listener: (jobId: string) => void): () => void {
        return this.changes.on(listener);
    }

    public dispose(): void {
        this.unsubscribe();
        this.stopFollowing.abort();
        for (const throttle of this.followed.values())
            throttle.dispose();
        this.followed.clear();
    }

    private find(id: string): BackgroundJob | undefined {
        return this.jobs.all().find((job) => job.id === id);
    }

    private follow(job: BackgroundJob): void {
        if (this.followed.has(job.id) || job.log.isClosed)
            return;
        this.followed.set(job.id, new Throttle(() => this.emit(job.id), notifyIntervalMs));
        void (async () => {
            let after = job.log.lastSequence;
            while (!this.stopFollowing.signal.aborted) {
                await job.log.waitForMore(after, this.stopFollowing.signal);
                if (job.log.lastSequence > after) {
                    after = job.log.lastSequence;
                    this.notify(job.id);
                }
                if (job.log.isClosed && job.log.lastSequence === after)
                    break;
            }
            // The last notification of a finished job goes out now, not after the throttle interval.
            this.followed.get(job.id)?.flush();
            this.followed.get(job.id)?.dispose();
            this.followed.delete(job.id);
        })();
    }

    private notify(jobId: string): void {
        const throttle = this.followed.get(jobId);
        if (throttle != null)
            throttle.schedule();
        else
            this.emit(jobId);
    }

    private emit(jobId: string): void {
        this.changes.emit(jobId);
    }
}

/** One line per event: its type and what a person would want from it (text deltas, the status reached). */
function describeEvent(event: LoggedEvent): JobEventView {
    const typed = event as LoggedEvent & {
        delta?: unknown, response?: {status?: string}, item?: {type?: string}, error?: {code?: string}, code?: string
    };
    let summary = "";
    if (typeof typed.delta === "string")
        summary = JSON.stringify(typed.delta);
    else if (typed.response?.status != null)
        summary = `status ${typed.response.status}`;
    else if (typed.item?.type != null)
        summary = typed.item.type;
    else if (typed.code != null || typed.error?.code != null)
        summary = String(typed.code ?? typed.error?.code);
    return {sequence: event.sequence_number, type: event.type, summary};
}
