import type {ChatEngine} from "../engine/types.js";
import type {ResponseRepository} from "./ports.js";
import {toApiError} from "./engineErrors.js";
import {invalidRequestBody} from "../protocol/errors.js";
import {isObject} from "../protocol/isObject.js";
import {GenerationRunner, type RunnerOptions, type RunOptions} from "./pipeline/GenerationRunner.js";
import {HistoryResolver, type HistoryOptions} from "./pipeline/HistoryResolver.js";
import type {AdmittedResponse, GenerationOutcome, PreparedResponse, PreviousResponse} from "./pipeline/preparedResponse.js";
import {ReasoningReplay, type ReasoningReplayOptions} from "./reasoning/ReasoningReplay.js";
import {RequestPreparer, type PrepareOptions, type PreparerOptions} from "./pipeline/RequestPreparer.js";
import {ResponseAdmission, type AdmissionOptions} from "./pipeline/ResponseAdmission.js";
import type {EventSink} from "./publication/PublicationBuffer.js";
import {ResponseLookup} from "./ResponseLookup.js";
import type {LoggedEvent, ResponseObject} from "../protocol/wire.js";
import {BackgroundJobs, type BackgroundJobsOptions} from "./background/BackgroundJobs.js";
import {BackgroundResponses} from "./background/BackgroundResponses.js";
import type {BackgroundJob, JobRunner} from "./background/backgroundJob.js";

export type ResponsesServiceOptions =
    PreparerOptions & HistoryOptions & RunnerOptions & ReasoningReplayOptions & AdmissionOptions & {
        /**
         * Background mode's limits. Absent: no background mode at all (`background: true` runs in its own request, as
         * a stateless server's did); the service fills in the engine's queue and the store's keeping of stopped jobs.
         */
        background?: Omit<BackgroundJobsOptions, "generationQueueFull" | "onFinished">
    };

/**
 * The Responses domain's entry point, transport-free: the HTTP routes and any other face (WebSocket, VS Code) call
 * it. A request goes prepare (`RequestPreparer`, with `HistoryResolver`) → admit (`ResponseAdmission`) → run
 * (`GenerationRunner`); the read endpoints are `ResponseLookup`'s, background mode `BackgroundResponses`'. This class only
 * wires them together.
 */
export class ResponsesService {
    private readonly preparer: RequestPreparer;
    private readonly admission: ResponseAdmission;
    private readonly runner: GenerationRunner;
    private readonly lookup: ResponseLookup;
    /** Background mode (null when the service was built without it). */
    public readonly background: BackgroundResponses | null;

    public constructor(
        private readonly engine: ChatEngine,
        public readonly store: ResponseRepository,
        options: ResponsesServiceOptions = {}
    ) {
        const reasoning = new ReasoningReplay(options);
        // The jobs exist before the lookup that chaining uses, which reads their records: a `previous_response_id`
        // may name a job that is still running, or whose stored copy was evicted.
        const runJob: JobRunner = (prepared, sink, signal) => this.runJob(prepared, sink, signal);
        const jobs = options.background == null ? null : new BackgroundJobs(runJob, {
            ...options.background,
            generationQueueFull: () => generationQueueFull(engine),
            onFinished: (job) => keepStoppedJob(store, job)
        });
        this.background = jobs == null ? null : new BackgroundResponses(jobs, store);
        this.lookup = new ResponseLookup(store, jobs == null ? {} : {backgroundResponse: (owner, id) => jobRecord(jobs.get(owner, id))});
        const history = new HistoryResolver(this.lookup, reasoning, options);
        this.preparer = new RequestPreparer(engine, store, history, options);
        this.admission = new ResponseAdmission(engine, history, options.compactor, options);
        this.runner = new GenerationRunner(store, reasoning, options);
    }

    /** Every check that can refuse the request, done before any generation. */
    public prepare(owner: string, body: unknown, options: PrepareOptions = {}): PreparedResponse {
        return this.preparer.prepare(owner, body, options);
    }

    /**
     * Takes a sequence for the prepared request: a full queue or an oversized prompt fails here, before any event.
     * With `announceTo`, a request that has to wait for a sequence opens its stream there first (`response.created`,
     * see `GenerationRunner.announce`), and the run continues that stream.
     */
    public async admit(prepared: PreparedResponse, signal?: AbortSignal, announceTo?: EventSink): Promise<AdmittedResponse> {
        let announcedThrough: number | undefined;
        const onQueued = announceTo == null ? undefined : () => {
            announcedThrough ??= this.runner.announce(prepared, announceTo);
        };
        const admitted = await this.admission.admit(prepared, signal, onQueued);
        return announcedThrough == null ? admitted : {...admitted, announcedThrough};
    }

    /** Generates on an admitted lease and stores the result; the lease is released when done. */
    public run(admitted: AdmittedResponse, options: RunOptions = {}): Promise<GenerationOutcome> {
        return this.runner.run(admitted, options);
    }

    /** Whose cached prompts a request of `owner` may reuse: the owner's own, unless the operator shares them. */
    public cachePartition(owner: string): string {
        return this.admission.cachePartition(owner);
    }

    /** A background job's current object while its record exists, else the stored response. */
    public retrieve(owner: string, id: string): ResponseObject {
        return this.background?.poll(owner, id) ?? this.lookup.retrieve(owner, id);
    }

    /** Deletes a stored response (and a finished background job's record; an active job is refused until cancelled). */
    public delete(owner: string, id: string): {id: string, object: "response.deleted", deleted: true} {
        if (this.background?.delete(owner, id) === true)
            return {id, object: "response.deleted", deleted: true};
        return this.lookup.delete(owner, id);
    }

    /** The input items of a stored response or of a background job (running ones included, as OpenAI serves them). */
    public listInputItems(owner: string, id: string, query: {order?: unknown, limit?: unknown, after?: unknown}) {
        return this.lookup.listInputItems(owner, id, query);
    }

    public async countInputTokens(owner: string, body: unknown): Promise<{object: "response.input_tokens", input_tokens: number}> {
        if (!isObject(body))
            throw invalidRequestBody();
        const prepared = this.prepare(owner, {...body, stream: undefined, background: undefined});
        try {
            const count = await this.engine.countPromptTokens(prepared.turns, prepared.params.toolChoice.offered, prepared.response.model);
            return {object: "response.input_tokens", input_tokens: count};
        } catch (error) {
            throw toApiError(error);
        }
    }

    /** The model that answers a request naming `requested` (see `RequestPreparer.servedModel`). */
    public servedModel(requested: string | null): string {
        return this.preparer.servedModel(requested);
    }

    public get modelId(): string | null {
        return this.engine.model?.id ?? null;
    }

    /** A background job runs admit + run like a foreground request, on the engine's own sequence pool and queue. */
    private async runJob(prepared: PreparedResponse, sink: (event: LoggedEvent) => void, signal: AbortSignal): Promise<GenerationOutcome> {
        return this.run(await this.admit(prepared, signal), {sink, signal});
    }
}

/** Full as the engine means it: no free sequence and no room left to wait for one (a new job is then refused with 503). */
function generationQueueFull(engine: ChatEngine): boolean {
    const stats = engine.stats();
    return stats.sequencesBusy >= stats.sequencesTotal && stats.queueDepth >= stats.queueLimit;
}

/**
 * Completed and incomplete jobs were stored by `run`; failed and cancelled ones stay retrievable too (when the request
 * asked for storage: the object echoes its `store`).
 */
function keepStoppedJob(store: ResponseRepository, job: BackgroundJob): void {
    const {response, history} = job.payload;
    if ((response.status === "failed" || response.status === "cancelled") && response.store)
        store.put(job.owner, response, history);
}

/** A job's record as chaining reads it: its live response object and input history. */
function jobRecord(job: BackgroundJob | undefined): PreviousResponse | undefined {
    return job == null ? undefined : {response: job.payload.response, inputItems: job.payload.history};
}
