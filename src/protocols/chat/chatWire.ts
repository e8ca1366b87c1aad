/**
 * The wire shapes of OpenAI's Chat Completions API as this server answers it: the `chat.completion` object and the
 * `chat.completion.chunk` of a stream. `reasoning_content` is llama.cpp's and vLLM's field for a thinking model's
 * thoughts (OpenAI's own models send none).
 */

export type ChatFinishReason = "stop" | "length" | "tool_calls";

export type ChatToolCall = {id: string, type: "function", function: {name: string, arguments: string}};

export type ChatTokenLogprob = {
    token: string,
    logprob: number,
    bytes: number[] | null,
    top_logprobs: {token: string, logprob: number, bytes: number[] | null}[]
};

export type ChatLogprobs = {content: ChatTokenLogprob[] | null, refusal: null};

export type ChatUsage = {
    prompt_tokens: number,
    completion_tokens: number,
    total_tokens: number,
    prompt_tokens_details: {cached_tokens: number},
    completion_tokens_details: {reasoning_tokens: number}
};

export type ChatCompletionMessage = {
    role: "assistant",
    content: string | null,
    refusal: string | null,
    reasoning_content?: string,
    tool_calls?: ChatToolCall[]
};

export type ChatCompletion = {
    id: string,
    object: "chat.completion",
    created: number,
    model: string,
    choices: [{index: 0, message: ChatCompletionMessage, logprobs: ChatLogprobs | null, finish_reason: ChatFinishReason}],
    usage: ChatUsage,
    system_fingerprint: null
};

/** A tool call's delta: the first carries its id and name, the next ones fragments of its arguments. */
export type ChatToolCallDelta = {index: number, id?: string, type?: "function", function: {name?: string, arguments: string}};

export type ChatDelta = {
    role?: "assistant",
    content?: string | null,
    refusal?: string | null,
    reasoning_content?: string,
    tool_calls?: ChatToolCallDelta[]
};

export type ChatCompletionChunk = {
    id: string,
    object: "chat.completion.chunk",
    created: number,
    model: string,
    system_fingerprint: null,
    /** Empty in the last chunk of a stream asked for `stream_options.include_usage`. */
    choices: {index: 0, delta: ChatDelta, logprobs: ChatLogprobs | null, finish_reason: ChatFinishReason | null}[],
    /** With `stream_options.include_usage`: null on every chunk but the last, which carries it. */
    usage?: ChatUsage | null
};
