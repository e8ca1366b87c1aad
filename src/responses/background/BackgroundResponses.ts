import {eventsNotRetained, invalidRequest, responseActive, responseNotFound} from "../../protocol/errors.js";
import type {ResponseObject} from "../../protocol/wire.js";
import type {PreparedResponse} from "../pipeline/preparedResponse.js";
import type {ResponseRepository} from "../ports.js";
import type {BackgroundJobs} from "./BackgroundJobs.js";
import type {JobEventLog} from "./JobEventLog.js";

/**
 * Background mode's rules, transport-free: which requests run in the background, what a poll, a stream, a cancel
 * and a delete of a background response do while its job record exists, and after it expired (then the stored
 * response answers). Faces call this; the jobs themselves are `BackgroundJobs`'.
 */
export class BackgroundResponses {
    public constructor(public readonly jobs: BackgroundJobs, private readonly store: ResponseRepository) {}

    /** Whether a prepared request runs as a background job rather than in its own request. */
    public accepts(prepared: PreparedResponse): boolean {
        return prepared.params.background;
    }

    /** Refuses background mode on a server that cannot keep its result (400), before a stream reserves anything. */
    public checkAvailable(): void {
        if (!this.store.enabled)
            throw invalidRequest("Background responses need the response store, which is disabled on this server.", "background",
                "unsupported_parameter");
    }

    /** Admits a job: its `queued` object, and the log its stream reads. */
    public create(prepared: PreparedResponse): {created: ResponseObject, log: JobEventLog} {
        this.checkAvailable();
        const created = this.jobs.submit(prepared);
        return {created, log: this.jobs.get(prepared.owner, created.id)!.log};
    }

    /** What a poll of a job answers (until it is terminal, no output), or undefined when no job record has this id. */
    public poll(owner: string, id: string): ResponseObject | undefined {
        const job = this.jobs.get(owner, id);
        return job == null ? undefined : this.jobs.view(job);
    }

    /** The events of a job to stream; a stored response without a job record has none kept (409), an unknown id 404. */
    public events(owner: string, id: string): JobEventLog {
        const job = this.jobs.get(owner, id);
        if (job != null)
            return job.log;
        if (this.store.has(owner, id))
            throw eventsNotRetained(id);
        throw responseNotFound(id);
    }

    /** Cancels a job (see `BackgroundJobs.cancel`); a background response whose record expired is terminal and returned as stored. */
    public async cancel(owner: string, id: string): Promise<ResponseObject> {
        const job = this.jobs.get(owner, id);
        if (job != null)
            return this.jobs.cancel(job);
        const stored = this.store.get(owner, id);
        if (stored == null)
            throw responseNotFound(id);
        if (!stored.response.background)
            throw invalidRequest("Only background responses can be cancelled.", null, "not_cancellable");
        return stored.response;
    }

    /**
     * Deletes a finished job's record and its stored response; an active job must be cancelled first (409).
     * False when no job record has this id: the caller deletes the stored response alone.
     */
    public delete(owner: string, id: string): boolean {
        const job = this.jobs.get(owner, id);
        if (job == null)
            return false;
        if (!this.jobs.forget(job))
            throw responseActive(job.id, job.payload.response.status);
        this.store.delete(owner, id);
        return true;
    }
}
