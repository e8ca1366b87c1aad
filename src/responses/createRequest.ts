import {Ajv2020} from "ajv/dist/2020.js";
import {createRequestSchema} from "./createRequestSchema.js";
import {invalidRequest, invalidRequestBody, unsupported} from "../protocol/errors.js";
import {isObject} from "../protocol/isObject.js";
import {checkClientSchema} from "./OutputValidator.js";
import {requestSchemaError} from "./schemaErrors.js";
import {parseToolChoice, parseTools, type ParsedToolChoice, type ParsedTools, type ToolOptions} from "./tools.js";
import type {ReasoningEffort, ReasoningSummary, TextFormat} from "../protocol/wire.js";

/** `include` values OpenAI defines; the hosted-tool ones are accepted and have nothing to add here. */
const knownIncludes = new Set([
    "reasoning.encrypted_content", "message.output_text.logprobs", "file_search_call.results", "web_search_call.results",
    "web_search_call.action.sources", "message.input_image.image_url", "computer_call_output.output.image_url",
    "code_interpreter_call.outputs"
]);

export type {ReasoningEffort};

/** A validated create request, in the server's own terms. */
export type CreateParams = {
    model: string | null,
    rawInput: unknown,
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
    include: Set<string>,
    tools: ParsedTools,
    toolChoice: ParsedToolChoice,
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

const ajv = new Ajv2020({allErrors: false, strict: false});
const validateBody = ajv.compile(createRequestSchema);

/**
 * Validates a `POST /v1/responses` body. Every refusal happens here, before any generation:
 * types and ranges by JSON schema, then the rules that need more than one field.
 */
export function parseCreateRequest(body: unknown, options: ToolOptions = {}): CreateParams {
    if (!isObject(body))
        throw invalidRequestBody();
    if (!validateBody(body))
        throw requestSchemaError(validateBody.errors);

    const b = body as Record<string, any>;
    if (b.prompt != null)
        throw unsupported("prompt", "Reusable prompts ('prompt') are not supported by this server: send 'input' and 'instructions'.");
    if (b.truncation != null && b.truncation !== "disabled")
        throw unsupported("truncation", `truncation '${String(b.truncation)}' is not supported: only 'disabled' (the input must fit the context).`);
    if (b.service_tier != null && b.service_tier !== "auto" && b.service_tier !== "default")
        throw unsupported("service_tier", `service_tier '${String(b.service_tier)}' is not supported: use 'auto' or 'default'.`);

    const include = new Set<string>(b.include ?? []);
    for (const value of include)
        if (!knownIncludes.has(value))
            throw invalidRequest(`Unknown include value '${value}'. Supported: ${[...knownIncludes].join(", ")}.`, "include", "invalid_value");

    const conversationId = b.conversation == null ? null : typeof b.conversation === "string" ? b.conversation : b.conversation.id;
    if (conversationId != null && b.previous_response_id != null)
        throw invalidRequest("'conversation' and 'previous_response_id' cannot be used together.", "conversation", "invalid_value");

    const background = b.background === true;
    if (background && b.store === false)
        throw invalidRequest("Background responses must be stored: 'background: true' cannot be combined with 'store: false'.", "store", "invalid_value");

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
        include,
        tools,
        toolChoice,
        parallelToolCalls: b.parallel_tool_calls ?? true,
        maxToolCalls: b.max_tool_calls ?? null,
        textFormat: parseTextFormat(b.text?.format),
        verbosity: b.text?.verbosity ?? undefined,
        reasoning: b.reasoning == null ? null : {effort: b.reasoning.effort ?? null, summary: b.reasoning.summary ?? b.reasoning.generate_summary ?? null},
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

function parseTextFormat(raw: Record<string, unknown> | undefined): TextFormat {
    if (raw == null || raw.type === "text")
        return {type: "text"};
    if (raw.type === "json_object")
        return {type: "json_object"};
    if (raw.type === "json_schema") {
        if (typeof raw.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(raw.name))
            throw invalidRequest("'text.format.name' must be 1-64 letters, digits, '_' or '-'.", "text.format.name");
        if (!isObject(raw.schema))
            throw invalidRequest("'text.format.schema' must be a JSON schema object.", "text.format.schema", "invalid_type");
        if (raw.strict != null && typeof raw.strict !== "boolean")
            throw invalidRequest("'text.format.strict' must be a boolean.", "text.format.strict", "invalid_type");
        checkClientSchema(raw.schema, {param: "text.format.schema", strict: raw.strict === true});
        return {
            type: "json_schema",
            name: raw.name,
            schema: raw.schema,
            strict: raw.strict === true,
            // Echoed in the response object, where the spec requires the field (null when not given).
            description: typeof raw.description === "string" ? raw.description : null
        };
    }
    throw invalidRequest(`Unsupported text.format type '${String(raw.type)}': use text, json_object or json_schema.`, "text.format.type");
}

function parseContextManagement(raw: Record<string, unknown>[] | undefined): {compactThreshold: number} | null {
    if (raw == null || raw.length === 0)
        return null;
    let threshold: number | null = null;
    raw.forEach((entry, index) => {
        if (entry.type !== "compaction")
            throw invalidRequest(`Unsupported context_management type '${String(entry.type)}': only 'compaction'.`, `context_management[${index}].type`);
        const value = entry.compact_threshold;
        if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 100_000_000)
            throw invalidRequest("'compact_threshold' must be an integer from 1 to 100000000.", `context_management[${index}].compact_threshold`);
        threshold = value;
    });
    return threshold == null ? null : {compactThreshold: threshold};
}
