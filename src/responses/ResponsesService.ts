import type {ChatEngine, EngineLease} from "../engine/types.js";
import type {ResponseRepository} from "./ports.js";
import {toApiError} from "./engineErrors.js";
import {invalidRequestBody} from "../protocol/errors.js";
import {isObject} from "../protocol/isObject.js";
import {GenerationRunner, type RunnerOptions, type RunOptions} from "./GenerationRunner.js";
import {HistoryResolver, type HistoryOptions} from "./HistoryResolver.js";
import type {PreparedResponse} from "./preparedResponse.js";
import {ReasoningReplay, type ReasoningReplayOptions} from "./ReasoningReplay.js";
import {RequestPreparer, type PrepareOptions, type PreparerOptions} from "./RequestPreparer.js";
import {ResponseAdmission, type AdmissionOptions} from "./ResponseAdmission.js";
import type {EventSink} from "./PublicationBuffer.js";
import {ResponseLookup, type LookupOptions} from "./ResponseLookup.js";
import type {ResponseObject} from "../protocol/wire.js";

export type ResponsesServiceOptions =
    PreparerOptions & HistoryOptions & LookupOptions & RunnerOptions & ReasoningReplayOptions & AdmissionOptions;

/**
 * The Responses domain's entry point, transport-free: the HTTP routes and any other face (WebSocket, VS Code) call
 * it. A request goes prepare (`RequestPreparer`, with `HistoryResolver`) → admit (`ResponseAdmission`) → run
 * (`GenerationRunner`); the read endpoints are `ResponseLookup`'s. This class only wires them together.
 */
export class ResponsesService {
    private readonly preparer: RequestPreparer;
    private readonly admission: ResponseAdmission;
    private readonly runner: GenerationRunner;
    private readonly lookup: ResponseLookup;

    public constructor(
        private readonly engine: ChatEngine,
        public readonly store: ResponseRepository,
        options: ResponsesServiceOptions = {}
    ) {
        const reasoning = new ReasoningReplay(options);
        this.lookup = new ResponseLookup(store, options);
        const history = new HistoryResolver(this.lookup, reasoning, options);
        this.preparer = new RequestPreparer(engine, store, history, options);
        this.admission = new ResponseAdmission(engine, history, options.compactor, options);
        this.runner = new GenerationRunner(store, reasoning, options);
    }

    /** Every check that can refuse the request, done before any generation. */
    public prepare(owner: string, body: unknown, options: PrepareOptions = {}): PreparedResponse {
        return this.preparer.prepare(owner, body, options);
    }

    /** Sends `response.created` of a request that must wait for a sequence (see `GenerationRunner.announce`). */
    public announce(prepared: PreparedResponse, sink: EventSink): void {
        this.runner.announce(prepared, sink);
    }

    /**
     * Takes a sequence for the prepared request: a full queue or an oversized prompt fails here, before any event.
     * `onQueued` is called if the request then has to wait for a sequence (see `announce`).
     */
    public admit(prepared: PreparedResponse, signal?: AbortSignal, onQueued?: () => void): Promise<EngineLease> {
        return this.admission.admit(prepared, signal, onQueued);
    }

    /** Generates on an admitted lease and stores the result; the lease is released when done. */
    public run(prepared: PreparedResponse, lease: EngineLease, options: RunOptions = {}): Promise<ResponseObject> {
        return this.runner.run(prepared, lease, options);
    }

    /** Whose cached prompts a request of `owner` may reuse: the owner's own, unless the operator shares them. */
    public cachePartition(owner: string): string {
        return this.admission.cachePartition(owner);
    }

    public retrieve(owner: string, id: string): ResponseObject {
        return this.lookup.retrieve(owner, id);
    }

    public delete(owner: string, id: string): {id: string, object: "response.deleted", deleted: true} {
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
            const count = await this.engine.countPromptTokens(prepared.turns, prepared.params.toolChoice.offered);
            return {object: "response.input_tokens", input_tokens: count};
        } catch (error) {
            throw toApiError(error);
        }
    }

    public get modelId(): string | null {
        return this.engine.model?.id ?? null;
    }
}
