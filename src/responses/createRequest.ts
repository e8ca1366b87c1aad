import {invalidRequest, invalidRequestBody} from "../protocol/errors.js";
import {isObject} from "../protocol/isObject.js";
import {parseKeepAlive} from "./keepAlive.js";
import {checkClientSchema} from "./outputValidation/OutputValidator.js";
import {parseToolChoice, parseTools, type ParsedToolChoice, type ParsedTools, type ToolOptions} from "./tools.js";
import type {ReasoningEffort, ReasoningSummary, TextFormat} from "../protocol/wire.js";
import type {InputBody} from "./requestSchemas/itemDefs.js";
import type {ContextManagementBody, TextFormatBody} from "./requestSchemas/defs.js";
import type {ToolChoiceBody} from "./requestSchemas/toolDefs.js";
import {checkBody, validateCreateRequest} from "./requestSchemas/validators.js";
import {checkShapeBounds} from "./requestSchemas/shapeBounds.js";

export type {ReasoningEffort};

export type PromptCacheRetention = "in_memory" | "24h";

/** A validated create request, in the server's own terms. */
export type CreateParams = {
    model: string | null,
    /** Checked by the schema; `normalizeInput` turns it into items once `item_reference`s can be looked up. */
    rawInput: InputBody | undefined,
    instructions: string | null,
    temperature: number,
    topP: number,
    maxOutputTokens: number | null,
    metadata: Record<string, string>,
    store: boolean,
    /** Whether `store` was given explicitly (`background` with an explicit `store: false` is refused). */
    storeExplicit: boolean,
    previousResponseId: string | null,
    stream: boolean,
    promptCacheKey: string | null,
    /**
     * `prompt_cache_retention`: `24h` saves the evaluated prompt to the on-disk prompt cache (loaded after a restart)
     * whatever `store` says; `in_memory` never writes it; null leaves it to the operator's default.
     */
    promptCacheRetention: PromptCacheRetention | null,
    /**
     * Ollama's `keep_alive` in milliseconds (`parseKeepAlive`): how long the model library keeps the model loaded after
     * this request (Infinity: indefinitely; 0: unloaded when it ends); null: the operator's `--idle-unload-secs`.
     */
    keepAliveMs: number | null,
    include: Set<string>,
    tools: ParsedTools,
    toolChoice: ParsedToolChoice,
    /** Parsed again once the history is known, when a tool search in it loaded more tools (`withLoadedTools`). */
    rawToolChoice: ToolChoiceBody | undefined,
    parallelToolCalls: boolean,
    maxToolCalls: number | null,
    textFormat: TextFormat,
    verbosity: "low" | "medium" | "high" | undefined,
    reasoning: {effort: ReasoningEffort | null, summary: ReasoningSummary | null} | null,
    background: boolean,
    conversationId: string | null,
    contextManagement: {compactThreshold: number} | null,
    user: string | null,
    safetyIdentifier: string | null,
    serviceTier: "auto" | "default",
    topLogprobs: number,
    /** Token logprobs on output_text, with `top` alternatives: asked by `include` or by `top_logprobs` > 0. */
    logprobs: {top: number} | null,
    presencePenalty: number,
    frequencyPenalty: number,
    seed: number | null
};

/**
 * Validates a `POST /v1/responses` body. Every refusal happens here, before any generation: types, ranges and
 * item shapes by JSON Schema (`schemas/createRequest.ts`), then the rules that need more than one field.
 */
export function parseCreateRequest(body: unknown, options: ToolOptions = {}): CreateParams {
    if (!isObject(body))
        throw invalidRequestBody();
    checkShapeBounds(body, "input");
    const b = checkBody(validateCreateRequest, body);

    const include = new Set<string>(b.include ?? []);
    const conversationId = b.conversation == null ? null : typeof b.conversation === "string" ? b.conversation : b.conversation.id;
    if (conversationId != null && b.previous_response_id != null)
        throw invalidRequest("'conversation' and 'previous_response_id' cannot be used together.", "conversation", "invalid_value");

    const background = b.background === true;
    if (background && b.store === false)
        throw invalidRequest("Background responses must be stored: 'background: true' cannot be combined with 'store: false'.", "store",
            "invalid_value");

    const tools = parseTools(b.tools, options);
    const toolChoice = parseToolChoice(b.tool_choice, tools);

    return {
        model: b.model ?? null,
        rawInput: b.input,
        instructions: b.instructions ?? null,
        temperature: b.temperature ?? 1,
        topP: b.top_p ?? 1,
        maxOutputTokens: b.max_output_tokens ?? null,
        metadata: b.metadata ?? {},
        store: b.store ?? true,
        storeExplicit: b.store != null,
        previousResponseId: b.previous_response_id ?? null,
        stream: b.stream === true,
        promptCacheKey: b.prompt_cache_key ?? null,
        promptCacheRetention: b.prompt_cache_retention == null ? null : b.prompt_cache_retention === "24h" ? "24h" : "in_memory",
        keepAliveMs: parseKeepAlive(b.keep_alive),
        include,
        tools,
        toolChoice,
        rawToolChoice: b.tool_choice,
        parallelToolCalls: b.parallel_tool_calls ?? true,
        maxToolCalls: b.max_tool_calls ?? null,
        textFormat: parseTextFormat(b.text?.format),
        verbosity: b.text?.verbosity ?? undefined,
        reasoning: b.reasoning == null ? null
            : {effort: b.reasoning.effort ?? null, summary: b.reasoning.summary ?? b.reasoning.generate_summary ?? null},
        background,
        conversationId,
        contextManagement: parseContextManagement(b.context_management),
        user: b.user ?? null,
        safetyIdentifier: b.safety_identifier ?? null,
        serviceTier: b.service_tier ?? "auto",
        topLogprobs: b.top_logprobs ?? 0,
        logprobs: include.has("message.output_text.logprobs") || (b.top_logprobs ?? 0) > 0 ? {top: b.top_logprobs ?? 0} : null,
        presencePenalty: b.presence_penalty ?? 0,
        frequencyPenalty: b.frequency_penalty ?? 0,
        seed: b.seed ?? null
    };
}

function parseTextFormat(format: TextFormatBody | undefined): TextFormat {
    if (format == null || format.type === "text")
        return {type: "text"};
    if (format.type === "json_object")
        return {type: "json_object"};
    const strict = format.strict === true;
    checkClientSchema(format.schema, {param: "text.format.schema", strict});
    return {
        type: "json_schema",
        name: format.name,
        schema: format.schema,
        strict,
        // Echoed in the response object, where the spec requires the field (null when not given).
        description: typeof format.description === "string" ? format.description : null
    };
}

/** The last compaction entry's threshold (the schema admits only compaction entries). */
function parseContextManagement(entries: ContextManagementBody | undefined): {compactThreshold: number} | null {
    const last = entries?.at(-1);
    return last == null ? null : {compactThreshold: last.compact_threshold};
}
