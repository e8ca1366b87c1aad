import {invalidRequest, invalidRequestBody} from "../../protocol/errors.js";
import {isObject} from "../../protocol/isObject.js";
import type {ReasoningEffort} from "../../protocol/wire.js";
import {thoughtBudgets} from "../../responses/reasoning/reasoningEffort.js";
import {
    messagesRequestSchema, type ContentBlockBody, type MessageBody, type MessagesRequestBody, type MessagesToolBody,
    type MessagesToolChoiceBody, type OutputConfigBody, type ThinkingBody, type ToolResultBody
} from "./messagesRequestSchema.js";
import type {CreateRequestBody} from "../../responses/requestSchemas/createRequestSchema.js";
import type {InputItemBody} from "../../responses/requestSchemas/itemDefs.js";
import type {FunctionToolBody} from "../../responses/requestSchemas/toolDefs.js";
import {checkBody, compileRequestSchema} from "../../responses/requestSchemas/validators.js";
import {checkShapeBounds} from "../../responses/requestSchemas/shapeBounds.js";
import {withoutAttributionLine} from "./attributionLine.js";

/** A Messages request in the Responses domain's terms: the create body it runs as, and what only Messages has. */
const validateMessagesRequest = compileRequestSchema<MessagesRequestBody>(messagesRequestSchema);

export type MessagesRequest = {
    /** A `POST /v1/responses` body (never stored): the same preparation, admission and generation as Responses. */
    responsesBody: CreateRequestBody,
    model: string,
    stream: boolean,
    stopSequences: string[],
    /** `thinking.display: "omitted"`: thinking blocks come back empty, their thought only in the signature. */
    omitThinking: boolean
};

/**
 * Validates an Anthropic Messages body (`schemas/messagesRequest.ts`) and maps it onto a Responses create body.
 * `count_tokens` takes the same body without `max_tokens`.
 */
export function parseMessagesRequest(body: unknown, options: {countOnly?: boolean} = {}): MessagesRequest {
    if (!isObject(body))
        throw invalidRequestBody();
    checkShapeBounds(body, "messages");
    const b = checkBody(validateMessagesRequest, options.countOnly && body.max_tokens === undefined ? {...body, max_tokens: 1} : body);
    const tools = (b.tools ?? []).map(toFunctionTool);
    return {
        model: b.model,
        stream: b.stream === true,
        stopSequences: b.stop_sequences ?? [],
        omitThinking: b.thinking?.display === "omitted",
        responsesBody: {
            model: b.model,
            instructions: systemText(b.system),
            input: b.messages.flatMap(toItems),
            max_output_tokens: b.max_tokens,
            ...(b.temperature == null ? {} : {temperature: b.temperature}),
            ...(b.top_p == null ? {} : {top_p: b.top_p}),
            ...(tools.length === 0 ? {} : {tools}),
            ...toolChoice(b.tool_choice, tools.length),
            reasoning: {effort: effortOf(b.thinking, b.output_config?.effort)},
            // A thought's signature is its sealed text: a client that sends the block back empty still gives it back.
            include: ["reasoning.encrypted_content"],
            ...textFormat(b.output_config?.format),
            stream: b.stream === true,
            store: false,
            ...(b.keep_alive == null ? {} : {keep_alive: b.keep_alive}),
            // A `cache_control` breakpoint asks for the prefix to be kept: it is saved to the prompt cache on disk (the
            // operator's TTL applies, not the block's `ttl`). Without one the operator's default decides.
            ...(hasCacheControl(b) ? {prompt_cache_retention: "24h"} : {})
        }
    };
}

/** Whether a `cache_control` breakpoint sits where Anthropic takes one: the body, a system block, a tool, a content block. */
function hasCacheControl(b: MessagesRequestBody): boolean {
    const marked = (block: unknown) => (block as {cache_control?: unknown} | null)?.cache_control != null;
    return marked(b)
        || (Array.isArray(b.system) && b.system.some(marked))
        || (b.tools ?? []).some(marked)
        || b.messages.some((message) => Array.isArray(message.content) && message.content.some(marked));
}

/**
 * `system` as a string or text blocks (every prompt prefix is reused in memory, marked with `cache_control` or not),
 * less Claude Code's attribution line, which would open every session's prompt with a value of its own.
 */
function systemText(sent: MessagesRequestBody["system"]): string | null {
    const system = withoutAttributionLine(sent);
    if (system == null)
        return null;
    return typeof system === "string" ? system : system.map((block) => block.text).join("\n\n");
}

/**
 * One message as Responses items, in block order: text becomes a message, `tool_use` a `function_call`, `tool_result`
 * a `function_call_output`, `thinking` a reasoning item (its text, or else its signature: the sealed thought this
 * server issued, is the model's earlier thought; another server's signature reads as nothing). A redacted thought
 * is another model's: there is nothing here to read back, so it is left out.
 */
function toItems(message: MessageBody): InputItemBody[] {
    if (typeof message.content === "string")
        return [{type: "message", role: message.role, content: message.content}];
    const items: InputItemBody[] = [];
    let text: string[] = [];
    const flushText = (): void => {
        if (text.length > 0)
            items.push({type: "message", role: message.role, content: text.join("\n\n")});
        text = [];
    };
    for (const block of message.content) {
        if (block.type !== "text")
            flushText();
        const item = blockItem(block);
        if (block.type === "text")
            text.push(block.text);
        else if (item != null)
            items.push(item);
    }
    flushText();
    return items;
}

function blockItem(block: ContentBlockBody): InputItemBody | null {
    switch (block.type) {
        case "tool_use":
            return {type: "function_call", call_id: block.id, name: block.name, arguments: JSON.stringify(block.input)};
        case "tool_result":
            return {type: "function_call_output", call_id: block.tool_use_id, output: toolResultText(block)};
        case "thinking":
            return {
                type: "reasoning", summary: [], content: block.thinking === "" ? [] : [{type: "reasoning_text", text: block.thinking}],
                ...(block.signature == null || block.signature === "" ? {} : {encrypted_content: block.signature})
            };
        default:
            return null;
    }
}

/** The result's text; an error result says so, as the model has no other way to tell. */
function toolResultText(block: ToolResultBody): string {
    const text = typeof block.content === "string" ? block.content : (block.content ?? []).map((part) => part.text).join("\n");
    return block.is_error === true ? `Error: ${text}` : text;
}

/** Anthropic's custom tool as a non-strict function (its schema is the client's, often wider than strict mode allows). */
function toFunctionTool(tool: MessagesToolBody): FunctionToolBody {
    return {type: "function", name: tool.name, description: tool.description ?? null, parameters: tool.input_schema, strict: false};
}

function toolChoice(choice: MessagesToolChoiceBody | undefined,
    toolCount: number): Pick<CreateRequestBody, "tool_choice" | "parallel_tool_calls"> {
    if (choice == null)
        return {};
    const parallel = choice.disable_parallel_tool_use === true ? {parallel_tool_calls: false} : {};
    if (choice.type === "none")
        return {tool_choice: "none"};
    if (toolCount === 0 && choice.type === "auto")
        return {};
    if (toolCount === 0)
        throw invalidRequest(`tool_choice '${choice.type}' needs at least one tool in 'tools'.`, "tool_choice", "invalid_value");
    if (choice.type === "any")
        return {tool_choice: "required", ...parallel};
    if (choice.type === "tool")
        return {tool_choice: {type: "function", name: choice.name}, ...parallel};
    return {tool_choice: "auto", ...parallel};
}

/**
 * `thinking` as a reasoning effort: off when disabled or absent (Anthropic's default); adaptive thinking at
 * `output_config.effort` (`max` is the highest here, `xhigh`), else medium; enabled thinking at the smallest effort
 * whose thought budget covers `budget_tokens`.
 */
function effortOf(thinking: ThinkingBody | undefined, effort: OutputConfigBody["effort"]): ReasoningEffort {
    if (thinking == null || thinking.type === "disabled")
        return "none";
    if (thinking.type !== "enabled" || thinking.budget_tokens == null)
        return effort === "max" ? "xhigh" : effort ?? "medium";
    const budget = thinking.budget_tokens;
    const efforts: ReasoningEffort[] = ["minimal", "low", "medium", "high", "xhigh"];
    return efforts.find((effort) => thoughtBudgets[effort] >= budget) ?? "xhigh";
}

/** `output_config.format`: structured output, strict as Anthropic's is (grammar and schema check, as Responses' `json_schema`). */
function textFormat(format: OutputConfigBody["format"]): Pick<CreateRequestBody, "text"> {
    return format == null ? {} : {text: {format: {type: "json_schema", name: "output", schema: format.schema, strict: true}}};
}
