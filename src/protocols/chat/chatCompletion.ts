import type {
    ChatCompletion, ChatCompletionMessage, ChatFinishReason, ChatLogprobs, ChatToolCall, ChatUsage
} from "./chatWire.js";
import {abandonedCall} from "../../protocol/abandonedCall.js";
import type {Logprob, ResponseObject, Usage} from "../../protocol/wire.js";

/** A Chat Completions id made from the response's own (`resp_…` → `chatcmpl-…`), so logs can match the two. */
export function chatCompletionId(response: ResponseObject): string {
    return `chatcmpl-${response.id.replace(/^resp_/, "")}`;
}

/**
 * The `chat.completion` object of a finished response: its text, thoughts (`reasoning_content`) and calls as one
 * assistant message. Failed responses never get here (the caller answers their error).
 */
export function toChatCompletion(response: ResponseObject, options: {logprobs: boolean}): ChatCompletion {
    let content: string | null = null;
    let refusal: string | null = null;
    let reasoning: string | undefined;
    const calls: ChatToolCall[] = [];
    const tokens: Logprob[] = [];
    for (const item of response.output) {
        if (item.type === "message") {
            for (const part of item.content) {
                if (part.type === "output_text") {
                    content = (content ?? "") + part.text;
                    tokens.push(...part.logprobs ?? []);
                } else if (part.type === "refusal")
                    refusal = (refusal ?? "") + part.refusal;
            }
        } else if (item.type === "reasoning")
            reasoning = (reasoning ?? "") + item.content.map((part) => part.text).join("");
        else if (item.type === "function_call" && !abandonedCall(item, response))
            calls.push({id: item.call_id, type: "function", function: {name: item.name, arguments: item.arguments}});
    }
    const called = calls.length > 0;
    const message: ChatCompletionMessage = {
        role: "assistant",
        content,
        refusal,
        ...(reasoning == null ? {} : {reasoning_content: reasoning}),
        ...(called ? {tool_calls: calls} : {})
    };
    return {
        id: chatCompletionId(response),
        object: "chat.completion",
        created: response.created_at,
        model: response.model,
        choices: [{
            index: 0, message, logprobs: options.logprobs ? toChatLogprobs(tokens) : null, finish_reason: finishReason(response, called)
        }],
        usage: toChatUsage(response.usage),
        system_fingerprint: null
    };
}

/** `length` when the token limit cut the answer, `tool_calls` when it ends in calls, else `stop`. */
export function finishReason(response: ResponseObject, called: boolean): ChatFinishReason {
    if (response.status === "incomplete")
        return "length";
    return called ? "tool_calls" : "stop";
}

export function toChatUsage(usage: Usage | null): ChatUsage {
    const prompt = usage?.input_tokens ?? 0;
    const completion = usage?.output_tokens ?? 0;
    return {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        prompt_tokens_details: {cached_tokens: usage?.input_tokens_details.cached_tokens ?? 0},
        completion_tokens_details: {reasoning_tokens: usage?.output_tokens_details.reasoning_tokens ?? 0}
    };
}

export function toChatLogprobs(logprobs: readonly Logprob[]): ChatLogprobs {
    return {
        content: logprobs.map((entry) => ({...entry, top_logprobs: entry.top_logprobs.map((one) => ({...one}))})),
        refusal: null
    };
}
