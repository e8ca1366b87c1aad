import {EngineError} from "../EngineError.js";
import type {GenerationEvent, GenerationResult, TokenLogprob} from "../types.js";

/** The parts of a Chat Completions stream chunk this engine reads (vLLM, SGLang, llama-server and Ollama send them). */
export type ChatCompletionChunk = {
    choices?: {
        index?: number,
        delta?: {
            content?: string | null,
            /** vLLM, SGLang, llama-server (`--reasoning-format`), DeepSeek. */
            reasoning_content?: string | null,
            /** vLLM ≥ 0.10 and Ollama name it `reasoning`. */
            reasoning?: string | null,
            tool_calls?: {index?: number, id?: string, function?: {name?: string, arguments?: string}}[]
        },
        logprobs?: {content?: UpstreamLogprob[] | null} | null,
        finish_reason?: string | null
    }[],
    usage?: {
        prompt_tokens?: number,
        completion_tokens?: number,
        prompt_tokens_details?: {cached_tokens?: number} | null,
        completion_tokens_details?: {reasoning_tokens?: number} | null
    } | null,
    /** llama-server's own figures: `cache_n` is the prompt tokens it reused from the slot's cache. */
    timings?: {cache_n?: number, prompt_n?: number, predicted_n?: number},
    error?: unknown
};

/** One tool call's delta in a chunk. */
type ToolCallDelta = NonNullable<NonNullable<NonNullable<ChatCompletionChunk["choices"]>[number]["delta"]>["tool_calls"]>[number];

type UpstreamLogprob = {
    token: string, logprob: number, bytes?: number[] | null, top_logprobs?: {token: string, logprob: number, bytes?: number[] | null}[]
};

type OpenCall = {index: number, name: string, arguments: string, started: boolean};

/**
 * Turns Chat Completions chunks into the engine's events as they arrive, and their sum into a
 * `GenerationResult`. Reasoning deltas are thought events (closed by `thought.end` when the answer or a
 * call begins); tool-call deltas are `call.start`/`call.delta`/`call.end`, numbered in the order calls
 * began. A call whose name has not arrived yet holds its argument deltas until it has one.
 * With `maxToolCalls`, the first call past the limit is not reported and `limitReached` turns true (the
 * caller stops the upstream then).
 */
export class ChunkAccumulator {
    private text = "";
    private readonly calls: OpenCall[] = [];
    private readonly byUpstreamIndex = new Map<number, OpenCall>();
    private inThought = false;
    private finishReason: string | null = null;
    private usage: ChatCompletionChunk["usage"] = null;
    private cacheFromTimings: number | null = null;
    private readonly logprobs: TokenLogprob[] = [];
    private reasoningChunks = 0;
    private contentChunks = 0;
    public firstTokenAt: number | null = null;
    public limitReached = false;

    public constructor(
        private readonly emit: (event: GenerationEvent) => void,
        private readonly options: {maxToolCalls?: number, now?: () => number} = {}
    ) {}

    /** Output pieces seen so far (about one token each on every upstream measured): for live activity figures. */
    public get deltaCount(): number {
        return this.reasoningChunks + this.contentChunks;
    }

    public push(chunk: ChatCompletionChunk): void {
        if (chunk.error != null)
            throw new EngineError("upstream_error", `The upstream reported an error mid-stream: ${describe(chunk.error)}`);
        if (chunk.usage != null)
            this.usage = chunk.usage;
        if (chunk.timings?.cache_n != null)
            this.cacheFromTimings = chunk.timings.cache_n;
        const choice = chunk.choices?.[0];
        if (choice == null)
            return;
        const delta = choice.delta ?? {};
        const reasoning = delta.reasoning_content ?? delta.reasoning;
        if (reasoning != null && reasoning !== "") {
            this.firstToken();
            this.reasoningChunks++;
            this.inThought = true;
            this.emit({type: "thought", text: reasoning});
        }
        if (delta.content != null && delta.content !== "") {
            this.firstToken();
            this.endThought();
            this.contentChunks++;
            this.text += delta.content;
            this.emit({type: "text", text: delta.content});
            for (const entry of choice.logprobs?.content ?? [])
                this.logprobs.push(toTokenLogprob(entry));
        }
        for (const call of delta.tool_calls ?? [])
            this.pushCall(call);
        if (choice.finish_reason != null)
            this.finishReason = choice.finish_reason;
    }

    /** The result once the stream ended (`[DONE]` or its end); `aborted` when it was cut short on purpose. */
    public finish(aborted: boolean, started: number): GenerationResult {
        // A thought cut by the output limit stays open: the response closes it as incomplete, not completed.
        if (this.finishReason !== "length")
            this.endThought();
        for (const call of this.calls)
            if (call.started)
                this.closeEarlier(call);
        const calls = this.calls.filter((call) => call.started).map((call) => ({name: call.name, arguments: call.arguments}));
        const usage = this.usage ?? {};
        return {
            stopReason: aborted ? "abort"
                : this.finishReason === "length" ? "length"
                    : calls.length > 0 ? "tool_calls"
                        : "stop",
            text: this.text,
            calls,
            usage: {
                // Without the upstream's usage (it ignored `stream_options`), output is counted as one token a delta.
                inputTokens: usage.prompt_tokens ?? 0,
                cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? this.cacheFromTimings ?? 0,
                outputTokens: usage.completion_tokens ?? this.deltaCount + this.calls.length,
                reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? this.reasoningChunks
            },
            logprobs: this.logprobs.length > 0 ? this.logprobs : undefined,
            timeToFirstTokenMs: this.firstTokenAt == null ? null : this.firstTokenAt - started
        };
    }

    /** Whether the upstream sent usage (else `finish` estimated it). */
    public get hasUsage(): boolean {
        return this.usage?.prompt_tokens != null;
    }

    private pushCall(delta: ToolCallDelta): void {
        this.firstToken();
        this.endThought();
        const upstreamIndex = delta.index ?? this.byUpstreamIndex.size;
        let call = this.byUpstreamIndex.get(upstreamIndex);
        if (call == null) {
            call = {index: this.calls.length, name: "", arguments: "", started: false};
            this.byUpstreamIndex.set(upstreamIndex, call);
            const limit = this.options.maxToolCalls;
            if (limit != null && this.calls.length >= limit) {
                this.limitReached = true;
                return;
            }
            this.calls.push(call);
        } else if (!this.calls.includes(call))
            return; // past the limit
        if (delta.function?.name != null && delta.function.name !== "" && !call.started) {
            call.name += delta.function.name;
            // A call's earlier calls are complete once a later one starts.
            for (const open of this.calls)
                if (open !== call && open.started && open.index < call.index)
                    this.closeEarlier(open);
            call.started = true;
            this.emit({type: "call.start", index: call.index, name: call.name});
            if (call.arguments !== "")
                this.emit({type: "call.delta", index: call.index, delta: call.arguments});
        }
        const args = delta.function?.arguments;
        if (args != null && args !== "") {
            call.arguments += args;
            if (call.started)
                this.emit({type: "call.delta", index: call.index, delta: args});
        }
    }

    private readonly closed = new Set<OpenCall>();

    /** Ends a call once (a later call began, or the stream ended). */
    private closeEarlier(call: OpenCall): void {
        if (this.closed.has(call))
            return;
        this.closed.add(call);
        this.emit({type: "call.end", index: call.index});
    }

    private firstToken(): void {
        this.firstTokenAt ??= this.options.now?.() ?? performance.now();
    }

    private endThought(): void {
        if (!this.inThought)
            return;
        this.inThought = false;
        this.emit({type: "thought.end"});
    }
}

function toTokenLogprob(entry: UpstreamLogprob): TokenLogprob {
    const bytes = (value: {token: string, bytes?: number[] | null}) => value.bytes ?? [...new TextEncoder().encode(value.token)];
    return {
        token: entry.token,
        logprob: entry.logprob,
        bytes: bytes(entry),
        topLogprobs: (entry.top_logprobs ?? []).map((top) => ({token: top.token, logprob: top.logprob, bytes: bytes(top)}))
    };
}

function describe(error: unknown): string {
    if (typeof error === "string")
        return error;
    if (error != null && typeof error === "object" && typeof (error as {message?: unknown}).message === "string")
        return (error as {message: string}).message;
    return JSON.stringify(error);
}
