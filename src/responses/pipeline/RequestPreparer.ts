import type {ChatEngine} from "../../engine/types.js";
import {modelNotFound, modelNotLoaded} from "../../protocol/errors.js";
import {toApiError} from "../engineErrors.js";
import {newId, nowSeconds} from "../../protocol/ids.js";
import {parseCreateRequest, type CreateParams} from "../createRequest.js";
import type {HistoryResolver, ResolvePrevious} from "./HistoryResolver.js";
import {normalizeInput} from "../inputItems.js";
import type {ResponseRepository} from "../ports.js";
import type {ApiProtocol, PreparedResponse} from "./preparedResponse.js";
import type {Item, ResponseObject} from "../../protocol/wire.js";
import {parseToolChoice, withLoadedTools} from "../tools.js";

export type PreparerOptions = {
    /** Require `model` to name the loaded model (404 otherwise). Off by default: any name is served by the loaded model. */
    strictModel?: boolean,
    /** Refuse hosted tool types with 400 instead of ignoring them. */
    strictTools?: boolean,
    log?: (line: string) => void
};

export type PrepareOptions = {
    /**
     * Looked up before the store for `previous_response_id`: a WebSocket connection keeps its
     * `store: false` responses here, so only that connection can continue them.
     */
    resolvePrevious?: ResolvePrevious,
    /** Text that ends the answer (see `PreparedResponse.stopSequences`): from the Chat Completions and Messages adapters. */
    stopSequences?: readonly string[],
    /** The API the body came in through. Defaults to `"responses"`. */
    protocol?: ApiProtocol
};

/** Turns a create body into a `PreparedResponse`: every check that can refuse the request, done before any generation. */
export class RequestPreparer {
    public constructor(
        private readonly engine: ChatEngine,
        private readonly store: ResponseRepository,
        private readonly history: HistoryResolver,
        private readonly options: PreparerOptions = {}
    ) {}

    public prepare(owner: string, body: unknown, options: PrepareOptions = {}): PreparedResponse {
        const acceptedAt = performance.now();
        const parsed = parseCreateRequest(body, {strictTools: this.options.strictTools});
        const model = this.servedModel(parsed.model);
        if (parsed.tools.ignored.length > 0)
            this.options.log?.(`tools: ignored hosted tool types not run by this server: ${[...new Set(parsed.tools.ignored)].join(", ")}`);

        const inherited = this.history.inherited(owner, parsed, options.resolvePrevious);
        const input = normalizeInput(parsed.rawInput, (id) => this.store.findItem(owner, id));
        const history = [...inherited, ...input];
        const params = withHistoryTools(parsed, history);
        const turns = this.history.render(owner, history, params.instructions);

        const stopSequences = options.stopSequences != null && options.stopSequences.length > 0 ? options.stopSequences : undefined;
        return {
            params, owner, protocol: options.protocol ?? "responses", history, input, turns, response: initialResponse(params, model),
            acceptedAt,
            ...stopSequences != null && {stopSequences}
        };
    }

    /**
     * The model that answers a request naming `requested`: a library's model by id or alias (404 listing its names
     * otherwise), else the one loaded (under `strictModel`, only when named by its id).
     */
    public servedModel(requested: string | null): string {
        if (this.engine.library != null)
            try {
                return this.engine.library.resolve(requested);
            } catch (error) {
                throw toApiError(error);
            }
        const loaded = this.engine.model;
        if (loaded == null)
            // An upstream engine has no model to load: what is missing is its connection (Load Model… connects).
            throw modelNotLoaded(
                this.engine.kind === "upstream" ? "The upstream servers are not connected: no model is served." : undefined
            );
        if (this.options.strictModel && requested != null && requested !== loaded.id)
            throw modelNotFound(requested, loaded.id);
        return loaded.id;
    }
}

/** The params with the tools that tool searches of the history loaded, and the `tool_choice` over them. */
function withHistoryTools(params: CreateParams, history: readonly Item[]): CreateParams {
    const tools = withLoadedTools(params.tools, history);
    return tools === params.tools ? params : {...params, tools, toolChoice: parseToolChoice(params.rawToolChoice, tools)};
}

/** The response object as created, before generation: the request's settings echoed in OpenAI's shape. */
function initialResponse(params: CreateParams, model: string): ResponseObject {
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
        reasoning: params.reasoning == null ? null
            : {...params.reasoning, effort: params.reasoning.effort === "minimal" ? "low" : params.reasoning.effort},
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
