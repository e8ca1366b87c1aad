import type {ChatEngine, ChatTurn, EngineLease, GenerationRequest, GenerationUsage, PromptProgress} from "../engine/types.js";
import type {ConversationHistory, ResponseRepository} from "./ports.js";
import {abortKindOf, type AbortKind} from "./abortReasons.js";
import type {AutoCompaction, Compactor} from "./Compactor.js";
import {parseCreateRequest, type CreateParams} from "./createRequest.js";
import {toApiError} from "./engineErrors.js";
import {ApiError, describeForLog, invalidRequest, invalidRequestBody, responseNotFound} from "../protocol/errors.js";
import {isObject} from "../protocol/isObject.js";
import {newId, nowSeconds} from "../protocol/ids.js";
import {normalizeInput} from "./inputItems.js";
import {pageById} from "./pagination.js";
import {generationShape} from "./generationShape.js";
import {OutputValidator} from "./OutputValidator.js";
import {ReasoningReplay, type ReasoningReplayOptions} from "./ReasoningReplay.js";
import {ResponseAssembler, toUsage, type EventSink} from "./ResponseAssembler.js";
import type {ResponseTimings} from "../protocol/timings.js";
import {responseTimings} from "./timings.js";
import {itemsToTurns} from "./transcript.js";
import type {Item, ResponseObject, ResponseStatus} from "../protocol/wire.js";

export type ResponsesServiceOptions = {
    /** Require `model` to name the loaded model (404 otherwise). Off by default: any name is served by the loaded model. */
    strictModel?: boolean,
    /** Refuse hosted tool types with 400 instead of ignoring them. */
    strictTools?: boolean,
    /** Expands compaction items and runs `context_management` compaction; without it, compaction items are refused. */
    compactor?: Compactor,
    /** Transcripts for `conversation`; without it, `conversation` is refused. */
    conversations?: ConversationHistory,
    /**
     * A background job's record, active or retained: its live response object and input history. Chaining to an
     * unfinished job is then refused by its status rather than as unknown, and a retained record supplies history
     * and input items even after the store evicted its copy (and before a running job is stored at all).
     */
    backgroundResponse?: (owner: string, id: string) => PreviousResponse | undefined,
    /** Told about every finished generation (metrics): usage, time to first token and generation time. */
    onGeneration?: (stats: GenerationStats) => void,
    /** Told about every generation stopped before it finished (metrics), with who stopped it. */
    onGenerationAborted?: (kind: AbortKind) => void,
    /** Told as each response's prompt is evaluated, step by step (the editor shows it while a long prompt runs). */
    onPromptProgress?: (responseId: string, progress: PromptProgress) => void,
    log?: (line: string) => void
} & ReasoningReplayOptions;

export type GenerationStats = {
    inputTokens: number,
    cachedTokens: number,
    outputTokens: number,
    timeToFirstTokenMs: number | null,
    durationMs: number,
    status: ResponseStatus
};

/** A request checked and resolved up to the point where generation starts. */
export type PreparedResponse = {
    readonly params: CreateParams,
    readonly owner: string,
    /** The full input history (inherited turns, then this request's input); replaced when `admit` compacts it. */
    history: Item[],
    /** This request's own input items (appended to its conversation when it finishes). */
    readonly input: Item[],
    turns: ChatTurn[],
    /** Set by `admit` when `context_management` compacted the history. */
    compaction?: AutoCompaction,
    /** The response object as created, before generation. */
    readonly response: ResponseObject,
    /** `performance.now()` when the request was accepted: queue wait is measured from here. */
    readonly acceptedAt: number,
    /** Set by `run` when generation finished (a background job's record shows them in the editor's inspector). */
    timings?: ResponseTimings,
    /** Set by `announce`: the stream's next sequence number once its opening events went out before admission. */
    announcedThrough?: number
};

/** A finished response and its input history, as `previous_response_id` continues it. */
export type PreviousResponse = {readonly response: ResponseObject, readonly inputItems: readonly Item[]};

export type PrepareOptions = {
    /**
     * Looked up before the store for `previous_response_id`: a WebSocket connection keeps its
     * `store: false` responses here, so only that connection can continue them.
     */
    resolvePrevious?: (id: string) => PreviousResponse | undefined
};

export type RunOptions = {
    sink?: EventSink,
    signal?: AbortSignal
};

/**
 * The Responses domain's entry point: validates, resolves history, runs the engine through a
 * `ResponseAssembler` and stores finished responses. Transport-free: the HTTP routes and any
 * other face (WebSocket, VS Code) call it.
 */
export class ResponsesService {
    public constructor(
        private readonly engine: ChatEngine,
        public readonly store: ResponseRepository,
        private readonly options: ResponsesServiceOptions = {}
    ) {
        this.reasoning = new ReasoningReplay(options);
    }

    private readonly reasoning: ReasoningReplay;

    /** Every check that can refuse the request, done before any generation. */
    public prepare(owner: string, body: unknown, options: PrepareOptions = {}): PreparedResponse {
        const acceptedAt = performance.now();
        const params = parseCreateRequest(body, {strictTools: this.options.strictTools});
        const model = this.checkModel(params.model);
        if (params.tools.ignored.length > 0)
            this.options.log?.(`tools: ignored hosted tool types not run by this server: ${[...new Set(params.tools.ignored)].join(", ")}`);

        const inherited = params.previousResponseId != null ? this.inheritedHistory(owner, params.previousResponseId, options.resolvePrevious)
            : params.conversationId != null ? this.conversationHistory(owner, params.conversationId)
                : [];
        const input = normalizeInput(params.rawInput, (id) => this.store.findItem(owner, id));
        const history = [...inherited, ...input];
        const turns = this.render(history, params.instructions);

        return {params, owner, history, input, turns, response: this.initialResponse(params, model), acceptedAt};
    }

    /**
     * Opens the stream of a request that passed every check and must wait for a sequence: `response.created` goes out
     * before the wait, as OpenAI sends it at once, so a client whose idle timer counts events (Codex) sees the stream
     * begin, then its keep-alives, instead of minutes of nothing. `run` continues the sequence after it.
     */
    public announce(prepared: PreparedResponse, sink: EventSink): void {
        if (prepared.announcedThrough != null)
            return;
        const assembler = new ResponseAssembler(prepared.response, sink);
        assembler.created();
        prepared.announcedThrough = assembler.nextSequenceNumber;
    }

    /**
     * Takes a sequence for the prepared request: a full queue or an oversized prompt fails here, before any event.
     * `onQueued` is called if the request then has to wait for a sequence (see `announce`).
     */
    public async admit(prepared: PreparedResponse, signal?: AbortSignal, onQueued?: () => void): Promise<EngineLease> {
        const threshold = prepared.params.contextManagement?.compactThreshold;
        if (threshold != null && this.options.compactor != null && prepared.compaction == null) {
            const result = await this.options.compactor.compactIfNeeded(prepared.history, threshold, {
                instructions: prepared.params.instructions,
                tools: prepared.params.toolChoice.offered,
                signal
            });
            if (result != null) {
                const {history, ...compaction} = result;
                prepared.history = history;
                prepared.turns = this.render([...history, compaction.item], prepared.params.instructions);
                prepared.compaction = compaction;
            }
        }
        try {
            const shape = generationShape(prepared.params);
            // An upstream engine keeps requests of one cache key or conversation on one server (its KV cache).
            const affinityKey = prepared.params.promptCacheKey ?? prepared.params.conversationId ?? undefined;
            return await this.engine.acquire(prepared.turns, shape.tools ?? [], signal, {...shape, affinityKey, onQueued});
        } catch (error) {
            throw toApiError(error);
        }
    }

    /** Generates on an admitted lease and stores the result; the lease is released when done. */
    public async run(prepared: PreparedResponse, lease: EngineLease, options: RunOptions = {}): Promise<ResponseObject> {
        const {params} = prepared;
        const validator = new OutputValidator(params.textFormat, params.tools.strict);
        const assembler = new ResponseAssembler(prepared.response, options.sink ?? (() => undefined), {
            customTools: params.tools.custom,
            holdContent: validator.holds,
            sealReasoning: this.reasoning.sealerFor(params),
            firstSequenceNumber: prepared.announcedThrough
        });
        if (prepared.announcedThrough == null)
            assembler.created();
        assembler.inProgress();
        if (prepared.compaction != null)
            announceCompaction(assembler, prepared.compaction);

        const request: GenerationRequest = {
            turns: prepared.turns,
            tools: params.toolChoice.offered,
            toolMode: params.toolChoice.mode ?? undefined,
            maxToolCalls: toolCallLimit(params),
            maxOutputTokens: params.maxOutputTokens ?? undefined,
            sampling: {
                temperature: params.temperature,
                topP: params.topP,
                seed: params.seed ?? undefined,
                presencePenalty: params.presencePenalty,
                frequencyPenalty: params.frequencyPenalty
            },
            ...generationShape(params),
            logprobs: params.logprobs ?? undefined,
            signal: options.signal,
            onEvent: (event) => assembler.onEngineEvent(event),
            onPromptProgress: this.options.onPromptProgress == null ? undefined : (progress) => this.options.onPromptProgress!(prepared.response.id, progress)
        };

        let result;
        const started = performance.now();
        try {
            result = await lease.generate(request);
        } catch (error) {
            const apiError = toApiError(error);
            if (options.signal?.aborted) {
                this.options.onGenerationAborted?.(abortKindOf(options.signal.reason));
                throw apiError;
            }
            if (apiError.status >= 500)
                this.options.log?.(`generation failed: ${describeForLog(apiError)}`);
            return assembler.fail(apiError.code ?? "server_error", apiError.message);
        } finally {
            lease.release();
        }

        if (result.stopReason === "abort") {
            this.options.onGenerationAborted?.(abortKindOf(options.signal?.reason));
            // The client went away: a disconnected foreground generation is not stored.
            throw new ApiError(499, "The client closed the connection.", {code: "request_aborted"});
        }
        prepared.timings = responseTimings({
            acceptedAt: prepared.acceptedAt, startedAt: started, endedAt: performance.now(), timeToFirstTokenMs: result.timeToFirstTokenMs, usage: result.usage
        });

        // OpenAI bills automatic compaction as part of the response: its summary generation counts in `usage`.
        const usage = prepared.compaction == null ? result.usage : addUsage(result.usage, prepared.compaction.usage);
        // Held content is published only once valid. A cut result's unfinished part is never validated, so it is
        // withdrawn; what it finished (each completed call is checked) is published, the cut call marked incomplete.
        const rejection = validator.check(result);
        if (rejection != null)
            return assembler.fail(rejection.code, rejection.message, usage);
        if (result.stopReason === "length" && validator.holds)
            assembler.withdrawCut(validator.unvalidatedCut);
        if (result.logprobs != null)
            assembler.attachLogprobs(result.logprobs);

        const response = result.stopReason === "length"
            ? assembler.complete("incomplete", usage, "max_output_tokens")
            : assembler.complete("completed", usage);
        this.reasoning.remember(response.output);
        if (params.store)
            this.store.put(prepared.owner, response, prepared.history, prepared.timings);
        if (params.conversationId != null && response.output.length > 0)
            this.options.conversations?.append(prepared.owner, params.conversationId, [...prepared.input, ...response.output]);
        this.options.onGeneration?.({
            inputTokens: result.usage.inputTokens,
            cachedTokens: result.usage.cachedTokens,
            outputTokens: result.usage.outputTokens,
            timeToFirstTokenMs: result.timeToFirstTokenMs,
            durationMs: performance.now() - started,
            status: response.status
        });
        return response;
    }

    /** Convenience for callers that need no admission step between prepare and run. */
    public async create(owner: string, body: unknown, options: RunOptions = {}): Promise<ResponseObject> {
        const prepared = this.prepare(owner, body);
        const lease = await this.admit(prepared, options.signal);
        return this.run(prepared, lease, options);
    }

    public retrieve(owner: string, id: string): ResponseObject {
        const stored = this.store.get(owner, id);
        if (stored == null)
            throw responseNotFound(id);
        return stored.response;
    }

    public delete(owner: string, id: string): {id: string, object: "response.deleted", deleted: true} {
        if (!this.store.delete(owner, id))
            throw responseNotFound(id);
        return {id, object: "response.deleted", deleted: true};
    }

    /** The input items of a stored response or of a background job (running ones included, as OpenAI serves them). */
    public listInputItems(owner: string, id: string, query: {order?: unknown, limit?: unknown, after?: unknown}) {
        const found = this.findResponse(owner, id);
        if (found == null)
            throw responseNotFound(id);
        return pageById(found.inputItems, query, (after) => `No input item with id '${after}' in this response.`);
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

    private checkModel(requested: string | null): string {
        const loaded = this.engine.model;
        if (loaded == null)
            throw new ApiError(503, "No model is loaded.", {code: "model_not_loaded"});
        if (this.options.strictModel && requested != null && requested !== loaded.id)
            throw new ApiError(404, `The model '${requested}' does not exist; this server serves '${loaded.id}'.`, {param: "model", code: "model_not_found"});
        return loaded.id;
    }

    private inheritedHistory(owner: string, previousId: string, resolvePrevious?: PrepareOptions["resolvePrevious"]): Item[] {
        const previous = resolvePrevious?.(previousId) ?? this.findResponse(owner, previousId);
        if (previous == null)
            throw responseNotFound(previousId, "previous_response_id");
        const status = previous.response.status;
        if (status === "queued" || status === "in_progress")
            throw invalidRequest(`previous response '${previousId}' has not finished (status: ${status}).`, "previous_response_id", "previous_response_not_finished");
        if (status === "failed" || status === "cancelled")
            throw invalidRequest(`previous response '${previousId}' cannot be continued (status: ${status}).`, "previous_response_id", "previous_response_unusable");
        return [...previous.inputItems, ...previous.response.output];
    }

    /** A stored response, else a background job's record (active, or retained after the store let go of it). */
    private findResponse(owner: string, id: string): PreviousResponse | undefined {
        return this.store.get(owner, id) ?? this.options.backgroundResponse?.(owner, id);
    }

    private conversationHistory(owner: string, conversationId: string): Item[] {
        const conversations = this.options.conversations;
        if (conversations == null || !conversations.enabled)
            throw invalidRequest("Conversations are disabled on this server.", "conversation", "unsupported_parameter");
        const items = conversations.items(owner, conversationId);
        if (items == null)
            throw new ApiError(404, `No conversation found with id '${conversationId}'.`, {param: "conversation", code: "conversation_not_found"});
        return [...items];
    }

    /** Chat turns for a history: compaction items replaced by their summaries, `instructions` first. */
    private render(history: readonly Item[], instructions: string | null): ChatTurn[] {
        const items = this.options.compactor?.expand(history) ?? history;
        const turns = itemsToTurns(this.reasoning.restore(items), {instructions, readReasoningToken: this.reasoning.readToken});
        if (turns.length === 0)
            turns.push({role: "user", text: ""});
        return turns;
    }

    private initialResponse(params: CreateParams, model: string): ResponseObject {
        return {
            id: newId("resp"),
            object: "response",
            created_at: nowSeconds(),
            completed_at: null,
            status: params.background ? "queued" : "in_progress",
            incomplete_details: null,
            model,
            previous_response_id: params.previousResponseId,
            instructions: params.instructions,
            output: [],
            error: null,
            tools: params.tools.echoed,
            tool_choice: params.toolChoice.wire,
            truncation: "disabled",
            parallel_tool_calls: params.parallelToolCalls,
            text: {format: params.textFormat, ...(params.verbosity != null ? {verbosity: params.verbosity} : {})},
            top_p: params.topP,
            presence_penalty: params.presencePenalty,
            frequency_penalty: params.frequencyPenalty,
            top_logprobs: params.topLogprobs,
            temperature: params.temperature,
            // The Open Responses schema has no "minimal" effort: it is echoed as "low" (its budget stays minimal's).
            reasoning: params.reasoning == null ? null : {...params.reasoning, effort: params.reasoning.effort === "minimal" ? "low" : params.reasoning.effort},
            usage: null,
            max_output_tokens: params.maxOutputTokens,
            max_tool_calls: params.maxToolCalls,
            store: params.store,
            background: params.background,
            service_tier: params.serviceTier === "auto" ? "default" : params.serviceTier,
            metadata: params.metadata,
            safety_identifier: params.safetyIdentifier,
            prompt_cache_key: params.promptCacheKey,
            user: params.user,
            conversation: params.conversationId == null ? null : {id: params.conversationId}
        };
    }
}

/** The two extension events and the compaction item that open the output of an auto-compacted response. */
function announceCompaction(assembler: ResponseAssembler, compaction: AutoCompaction): void {
    assembler.custom({type: "response.compaction.started", input_tokens: compaction.tokensBefore});
    // The summary's own usage, so a client can tell it apart from the answer's within the response's `usage`.
    assembler.custom({
        type: "response.compaction.completed", input_tokens_before: compaction.tokensBefore, input_tokens_after: compaction.tokensAfter, usage: toUsage(compaction.usage)
    });
    assembler.addCompleteItem(compaction.item);
}

/** Calls one generation may make: one for a named tool choice or without parallel calls, else `max_tool_calls`. */
function toolCallLimit(params: CreateParams): number | undefined {
    return params.toolChoice.singleCall || !params.parallelToolCalls ? 1 : params.maxToolCalls ?? undefined;
}

/** Two generations' usage as one: the answer and the summary an automatic compaction generated for it. */
function addUsage(answer: GenerationUsage, summary: GenerationUsage): GenerationUsage {
    return {
        inputTokens: answer.inputTokens + summary.inputTokens,
        cachedTokens: answer.cachedTokens + summary.cachedTokens,
        outputTokens: answer.outputTokens + summary.outputTokens,
        reasoningTokens: answer.reasoningTokens + summary.reasoningTokens
    };
}
