import type {ChatTurn, GenerationRequest, ToolSpec} from "../types.js";

/** An OpenAI Chat Completions message, as every upstream (vLLM, SGLang, llama-server, Ollama) reads it. */
export type ChatMessage =
    | {role: "system" | "user", content: string}
    | {role: "assistant", content: string | null, tool_calls?: ChatToolCall[]}
    | {role: "tool", tool_call_id: string, content: string};

export type ChatToolCall = {id: string, type: "function", function: {name: string, arguments: string}};

export type ChatCompletionsBody = {
    model: string,
    messages: ChatMessage[],
    stream: true,
    stream_options: {include_usage: true},
    tools?: {type: "function", function: {name: string, description?: string, parameters: Record<string, unknown>}}[],
    tool_choice?: "auto" | "required",
    parallel_tool_calls?: boolean,
    response_format?: {type: "json_object"}
        | {type: "json_schema", json_schema: {name: string, schema: Record<string, unknown>, strict: true}},
    max_tokens?: number,
    temperature?: number,
    top_p?: number,
    seed?: number,
    presence_penalty?: number,
    frequency_penalty?: number,
    stop?: string[],
    logprobs?: boolean,
    top_logprobs?: number,
    chat_template_kwargs?: {enable_thinking: boolean},
    reasoning_effort?: "low" | "medium" | "high",
    /** llama-server's thought budget: it forces the end of the thought after this many tokens. Others ignore it. */
    reasoning_budget_tokens?: number
};

/**
 * `reasoning.effort` levels as Chat Completions' `reasoning_effort`, in the three values every engine that reads
 * it accepts (vLLM refuses others); `minimal` and `xhigh` differ from their neighbours by the thought budget sent
 * with them. `none` is sent as thinking off instead.
 */
const chatEffort = {minimal: "low", low: "low", medium: "medium", high: "high", xhigh: "high"} as const;

/**
 * Engine turns as Chat Completions messages. A model turn's parts become assistant messages in order: text
 * (and the text around calls) as `content`, consecutive calls as one message's `tool_calls`, each followed by
 * its `tool` result. Call ids are made from the call's position (`call_<turn>_<part>`): the same history
 * always renders the same prompt, so an upstream's prefix cache keeps working across a chain.
 * Thought parts are dropped: earlier turns' reasoning is not sent back (the chat templates of the common
 * reasoning models strip it from history anyway, and Chat Completions has no standard field for it).
 */
export function toChatMessages(turns: readonly ChatTurn[]): ChatMessage[] {
    const messages: ChatMessage[] = [];
    turns.forEach((turn, turnIndex) => {
        if (turn.role !== "model") {
            messages.push({role: turn.role, content: turn.text});
            return;
        }
        let text = "";
        let calls: ChatToolCall[] = [];
        let results: ChatMessage[] = [];
        const flush = () => {
            if (text === "" && calls.length === 0)
                return;
            messages.push(
                calls.length === 0 ? {role: "assistant", content: text}
                    : {role: "assistant", content: text === "" ? null : text, tool_calls: calls}
            );
            messages.push(...results);
            text = "";
            calls = [];
            results = [];
        };
        turn.parts.forEach((part, partIndex) => {
            if (part.type === "thought")
                return;
            if (part.type === "text") {
                if (calls.length > 0)
                    flush();
                text += part.text;
                return;
            }
            const id = `call_${turnIndex}_${partIndex}`;
            calls.push({id, type: "function", function: {name: part.name, arguments: part.arguments}});
            results.push({role: "tool", tool_call_id: id, content: part.result});
        });
        flush();
    });
    return messages;
}

export function toChatTools(tools: readonly ToolSpec[]): NonNullable<ChatCompletionsBody["tools"]> {
    return tools.map((tool) => ({
        type: "function",
        function: {
            name: tool.name,
            ...(tool.description == null ? {} : {description: tool.description}),
            parameters: tool.parameters ?? {type: "object", properties: {}}
        }
    }));
}

export type ChatRequestOptions = {
    model: string,
    /** Stop sequences (the operator's `--stop`, then the request's), sent as `stop`. */
    stop?: readonly string[]
};

/**
 * One generation request as a streaming Chat Completions body. `tool_choice` narrows as the engine's
 * `ToolMode` says: `required` with names offers only those tools and requires a call (one name: a named call). One call
 * at most (`maxToolCalls: 1`) is `parallel_tool_calls: false`;
 * a larger limit is enforced on the stream (calls past it end the generation).
 */
export function toChatCompletionsBody(request: GenerationRequest, options: ChatRequestOptions): ChatCompletionsBody {
    const body: ChatCompletionsBody = {
        model: options.model,
        messages: toChatMessages(request.turns),
        stream: true,
        stream_options: {include_usage: true}
    };
    const mode = request.toolMode;
    let tools = request.tools ?? [];
    if (mode?.type === "required" && mode.names != null && mode.names.length > 0) {
        const allowed = new Set(mode.names);
        tools = tools.filter((tool) => allowed.has(tool.name));
    }
    if (tools.length > 0) {
        body.tools = toChatTools(tools);
        // A named call is "required" over that one tool: the same contract, and llama-server (as bundled) ignores
        // the named form `{type: "function", function: {name}}` while it enforces "required".
        body.tool_choice = mode?.type === "required" ? "required" : "auto";
        if (request.maxToolCalls === 1)
            body.parallel_tool_calls = false;
    }
    if (request.json != null)
        body.response_format = request.json.type === "object"
            ? {type: "json_object"}
            : {type: "json_schema", json_schema: {name: "output", schema: request.json.schema, strict: true}};
    if (request.maxOutputTokens != null)
        body.max_tokens = request.maxOutputTokens;
    const sampling = request.sampling ?? {};
    if (sampling.temperature != null)
        body.temperature = sampling.temperature;
    if (sampling.topP != null)
        body.top_p = sampling.topP;
    if (sampling.seed != null)
        body.seed = sampling.seed;
    if (sampling.presencePenalty != null && sampling.presencePenalty !== 0)
        body.presence_penalty = sampling.presencePenalty;
    if (sampling.frequencyPenalty != null && sampling.frequencyPenalty !== 0)
        body.frequency_penalty = sampling.frequencyPenalty;
    if (options.stop != null && options.stop.length > 0)
        body.stop = [...options.stop];
    if (request.logprobs != null) {
        body.logprobs = true;
        body.top_logprobs = request.logprobs.top;
    }
    // `reasoning.effort: "none"` (a zero thought budget) and JSON output turn thinking off, as with the local
    // engine, in the templates that read `enable_thinking` (Qwen 3, DeepSeek, GLM…); others ignore the variable.
    // Another effort the client named goes as `reasoning_effort` (llama-server hands it to the chat template,
    // gpt-oss's reads it; vLLM and Ollama pass it to the model's reasoning settings), with this server's thought
    // budget for that effort (docs/upstream.md). Without an effort, the upstream's own default applies.
    const effort = request.reasoningEffort;
    if (request.thoughtBudget === 0 || request.json != null)
        body.chat_template_kwargs = {enable_thinking: false};
    else if (effort != null && effort !== "none") {
        body.reasoning_effort = chatEffort[effort];
        if (request.thoughtBudget != null)
            body.reasoning_budget_tokens = request.thoughtBudget;
    }
    return body;
}

/** A rough prompt size for when the upstream does not count for us: ~4 characters a token, plus per-message framing. */
export function estimatePromptTokens(turns: readonly ChatTurn[], tools: readonly ToolSpec[] = []): number {
    const messages = toChatMessages(turns);
    const chars = JSON.stringify(messages).length + (tools.length === 0 ? 0 : JSON.stringify(toChatTools(tools)).length);
    return Math.ceil(chars / 4) + 4 * messages.length;
}
