import {invalidRequest, invalidRequestBody} from "../../protocol/errors.js";
import {isObject} from "../../protocol/isObject.js";
import {
    chatCompletionRequestSchema, type ChatCompletionRequestBody, type ChatMessageBody, type ChatResponseFormatBody
} from "./chatRequestSchema.js";
import type {CreateRequestBody} from "../../responses/requestSchemas/createRequestSchema.js";
import type {TextFormatBody} from "../../responses/requestSchemas/defs.js";
import type {InputItemBody} from "../../responses/requestSchemas/itemDefs.js";
import type {ToolChoiceBody} from "../../responses/requestSchemas/toolDefs.js";
import {checkBody, compileRequestSchema} from "../../responses/requestSchemas/validators.js";
import {checkShapeBounds} from "../../responses/requestSchemas/shapeBounds.js";

/** A Chat Completions request as the Responses domain runs it, and what only the Chat Completions answer needs. */
const validateChatCompletionRequest = compileRequestSchema<ChatCompletionRequestBody>(chatCompletionRequestSchema);

export type ChatRequest = {
    /** The same request as a Responses create body: prepared, admitted and run like any other (never stored). */
    responsesBody: CreateRequestBody,
    stream: boolean,
    /** `stream_options.include_usage`: a last chunk with empty choices carries the usage. */
    includeUsage: boolean,
    /** `logprobs: true`: token logprobs on the answer's content. */
    logprobs: boolean,
    /** `stop`: text that ends the answer (the engine stops there; `finish_reason` is `stop`). */
    stopSequences: string[]
};

/**
 * Checks a `POST /v1/chat/completions` body (its JSON Schema, then the rules between fields) and maps it onto the
 * Responses create body, so that Chat Completions runs on the one generation path: messages become input items,
 * `response_format` becomes `text.format`, `max_tokens` `max_output_tokens`. Chat Completions is stateless, so the
 * body always says `store: false`.
 */
export function parseChatRequest(body: unknown): ChatRequest {
    if (!isObject(body))
        throw invalidRequestBody();
    checkShapeBounds(body, "messages");
    const b = checkBody(validateChatCompletionRequest, body);
    if (b.top_logprobs != null && b.top_logprobs > 0 && b.logprobs !== true)
        throw invalidRequest("'top_logprobs' requires 'logprobs' to be true.", "top_logprobs", "invalid_value");
    if (b.stream_options != null && b.stream !== true)
        throw invalidRequest("'stream_options' is only allowed when 'stream' is true.", "stream_options", "invalid_value");
    const logprobs = b.logprobs === true;
    const format = textFormat(b.response_format);
    const responsesBody: CreateRequestBody = {
        model: b.model,
        input: b.messages.flatMap(toInputItems),
        store: false,
        stream: b.stream === true,
        temperature: b.temperature,
        top_p: b.top_p,
        presence_penalty: b.presence_penalty,
        frequency_penalty: b.frequency_penalty,
        seed: b.seed,
        max_output_tokens: b.max_completion_tokens ?? b.max_tokens,
        tools: b.tools?.map(({function: f}) => ({
            type: "function" as const, name: f.name, description: f.description, parameters: f.parameters, strict: f.strict
        })),
        tool_choice: toolChoice(b.tool_choice),
        parallel_tool_calls: b.parallel_tool_calls,
        text: format == null && b.verbosity == null
            ? undefined
            : {...(format == null ? {} : {format}), ...(b.verbosity == null ? {} : {verbosity: b.verbosity})},
        reasoning: b.reasoning_effort == null ? undefined : {effort: b.reasoning_effort},
        include: logprobs ? ["message.output_text.logprobs"] : undefined,
        top_logprobs: logprobs ? b.top_logprobs : undefined,
        metadata: b.metadata,
        user: b.user,
        safety_identifier: b.safety_identifier,
        prompt_cache_key: b.prompt_cache_key,
        prompt_cache_retention: b.prompt_cache_retention,
        keep_alive: b.keep_alive,
        service_tier: b.service_tier
    };
    const stopSequences = b.stop == null ? [] : typeof b.stop === "string" ? [b.stop] : b.stop;
    return {responsesBody, stream: b.stream === true, includeUsage: b.stream_options?.include_usage === true, logprobs, stopSequences};
}

/** One message as the input items the Responses domain renders: an assistant turn may be thoughts, text and calls. */
function toInputItems(message: ChatMessageBody): InputItemBody[] {
    switch (message.role) {
        case "system":
        case "developer":
        case "user":
            return [{type: "message", role: message.role, content: textParts(message.content, "input_text")}];
        case "tool":
            return [{type: "function_call_output", call_id: message.tool_call_id, output: textParts(message.content, "input_text")}];
        case "assistant": {
            const items: InputItemBody[] = [];
            if (message.reasoning_content != null && message.reasoning_content !== "")
                items.push({type: "reasoning", summary: [], content: [{type: "reasoning_text", text: message.reasoning_content}]});
            const content = assistantContent(message);
            if (content.length > 0)
                items.push({type: "message", role: "assistant", content});
            for (const call of message.tool_calls ?? [])
                items.push({type: "function_call", call_id: call.id, name: call.function.name, arguments: call.function.arguments});
            return items;
        }
    }
}

function textParts(content: string | {text: string}[], type: "input_text" | "output_text"): {type: typeof type, text: string}[] {
    return typeof content === "string" ? [{type, text: content}] : content.map((part) => ({type, text: part.text}));
}

type AssistantPart = {type: "output_text", text: string} | {type: "refusal", refusal: string};

function assistantContent(message: Extract<ChatMessageBody, {role: "assistant"}>): AssistantPart[] {
    const parts: AssistantPart[] = [];
    const content = message.content;
    if (typeof content === "string") {
        if (content !== "")
            parts.push({type: "output_text", text: content});
    } else {
        for (const part of content ?? [])
            parts.push(part.type === "text" ? {type: "output_text", text: part.text} : part);
    }
    if (message.refusal != null && message.refusal !== "")
        parts.push({type: "refusal", refusal: message.refusal});
    return parts;
}

function toolChoice(choice: ChatCompletionRequestBody["tool_choice"]): ToolChoiceBody | undefined {
    if (choice == null)
        return undefined;
    return typeof choice === "string" ? choice : {type: "function", name: choice.function.name};
}

function textFormat(format: ChatResponseFormatBody | undefined): TextFormatBody | undefined {
    if (format == null || format.type !== "json_schema")
        return format ?? undefined;
    const {name, description, schema, strict} = format.json_schema;
    return {type: "json_schema", name, schema: schema ?? {}, strict, ...(description == null ? {} : {description})};
}
