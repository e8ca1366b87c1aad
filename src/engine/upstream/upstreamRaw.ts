import type {CompletionRequest, CompletionResult, EmbeddingRequest, EmbeddingResult} from "../completionTypes.js";
import {EngineError} from "../EngineError.js";
import {PostFailure, postRequest, readText} from "./postRequest.js";
import {streamSse} from "./streamSse.js";
import type {Upstream} from "./Upstream.js";
import {statusError, UpstreamConnectError} from "./upstreamErrors.js";

/** What a raw request to an upstream needs besides the request: the upstream's model name and its silence limit. */
export type RawUpstreamOptions = {model: string, timeoutMs: number};

/** Bytes an embeddings answer may have: 2,048 inputs of 4,096 floats as JSON text is ~170 MB. */
const maxEmbeddingsAnswerBytes = 256 * 1024 * 1024;

/**
 * A raw completion on the upstream's own endpoints, streamed: a prompt alone goes to OpenAI's `/v1/completions` (vLLM,
 * SGLang, llama-server, Ollama); fill in the middle (`suffix`) to llama.cpp's `/infill`, the one upstream server whose
 * FIM uses the model's own tokens and repository context (vLLM and SGLang refuse `suffix`), which also applies
 * `t_max_predict_ms`. An upstream without `/infill` answers 404, said in one line.
 */
export async function completeUpstream(upstream: Upstream, request: CompletionRequest,
    options: RawUpstreamOptions): Promise<CompletionResult> {
    const started = performance.now();
    const sampling = {temperature: request.sampling?.temperature, top_p: request.sampling?.topP, seed: request.sampling?.seed,
        top_k: request.sampling?.topK};
    const infill = request.suffix != null;
    const body = infill
        ? {model: options.model, input_prefix: request.prompt, input_suffix: request.suffix,
            input_extra: request.extra ?? [], n_predict: request.maxOutputTokens ?? -1, stop: request.stopSequences ?? [],
            t_max_predict_ms: request.timeLimitMs, stream: true, cache_prompt: true, ...sampling}
        : {model: options.model, prompt: request.prompt, max_tokens: request.maxOutputTokens, stop: request.stopSequences,
            stream: true, stream_options: {include_usage: true}, ...sampling};
    const state: ChunkState & {text: string, firstTokenAt: number} = {
        text: "", firstTokenAt: 0, stopReason: "stop", stopSequence: undefined, usage: {inputTokens: 0, cachedTokens: 0, outputTokens: 0}
    };
    const onText = (text: string) => {
        if (text === "")
            return;
        state.firstTokenAt ||= performance.now();
        state.text += text;
        request.onText?.(text);
    };
    const handle = (data: string) => {
        if (data === "[DONE]")
            return "done" as const;
        const chunk = parseJson(upstream.label, data) as CompletionsChunk & InfillChunk;
        return infill ? readInfillChunk(chunk, state, onText) : readCompletionsChunk(chunk, state, onText);
    };
    try {
        await streamSse(upstream, infill ? "/infill" : "/v1/completions", body, {signal: request.signal, timeoutMs: options.timeoutMs},
            handle, infill ? "its last chunk (stop: true)" : "the final [DONE]");
    } catch (error) {
        // 404: no /infill there; 501: llama-server's answer for a model without FIM tokens. Either is the request's
        // `suffix` this upstream cannot honour (400), not a bad gateway.
        if (infill && error instanceof EngineError && error.details.status === 404)
            throw new EngineError("unsupported", `The upstream ${upstream.label} has no /infill: fill in the middle through an `
                + "upstream needs llama.cpp's server there (vLLM and SGLang do not fill in the middle); send the prompt without suffix.",
            {param: "suffix"});
        if (infill && error instanceof EngineError && error.details.status === 501)
            throw new EngineError("unsupported", `${error.message.trim()} (the upstream's model cannot fill in the middle: send the `
                + "prompt without suffix, or use a model with fill-in-the-middle tokens)", {param: "suffix"});
        throw error;
    }
    const ended = performance.now();
    return {
        stopReason: state.stopReason, stopSequence: state.stopSequence, text: state.text, usage: state.usage,
        timings: {
            promptMs: (state.firstTokenAt || ended) - started, generationMs: state.firstTokenAt === 0 ? 0 : ended - state.firstTokenAt
        }
    };
}

type CompletionsChunk = {
    choices?: {text?: string, finish_reason?: string | null}[],
    usage?: {prompt_tokens?: number, completion_tokens?: number, prompt_tokens_details?: {cached_tokens?: number}} | null
};
type InfillChunk = {
    content?: string, stop?: boolean, stop_type?: string, stopping_word?: string, tokens_predicted?: number,
    tokens_evaluated?: number, timings?: {cache_n?: number}
};
type ChunkState = {stopReason: CompletionResult["stopReason"], stopSequence: string | undefined, usage: CompletionResult["usage"]};

function readCompletionsChunk(chunk: CompletionsChunk, state: ChunkState, onText: (text: string) => void): false {
    const choice = chunk.choices?.[0];
    onText(choice?.text ?? "");
    if (choice?.finish_reason === "length")
        state.stopReason = "length";
    if (chunk.usage != null)
        state.usage = {inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0,
            cachedTokens: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0};
    return false;
}

function readInfillChunk(chunk: InfillChunk, state: ChunkState, onText: (text: string) => void): "done" | false {
    onText(chunk.content ?? "");
    if (chunk.stop !== true)
        return false;
    state.stopReason = chunk.stop_type === "limit" ? "length" : "stop";
    if (chunk.stop_type === "word" && chunk.stopping_word != null && chunk.stopping_word !== "")
        state.stopSequence = chunk.stopping_word;
    state.usage = {
        inputTokens: chunk.tokens_evaluated ?? 0, outputTokens: chunk.tokens_predicted ?? 0, cachedTokens: chunk.timings?.cache_n ?? 0
    };
    return "done";
}

/** Embeddings on the upstream's OpenAI `/v1/embeddings`, all the inputs in one request (the upstream batches them). */
export async function embedUpstream(upstream: Upstream, request: EmbeddingRequest, options: RawUpstreamOptions): Promise<EmbeddingResult> {
    const body = JSON.stringify({model: options.model, input: request.inputs, encoding_format: "float"});
    const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs), ...request.signal == null ? [] : [request.signal]]);
    let response;
    try {
        response = await postRequest(upstream.url("/v1/embeddings"), upstream.agent, upstream.headers(true), body, signal);
    } catch (error) {
        if (request.signal?.aborted)
            throw new EngineError("aborted", "The request was aborted.");
        if (signal.aborted)
            throw new EngineError("upstream_timeout",
                `The upstream ${upstream.label} did not answer within ${Math.round(options.timeoutMs / 1000)} s.`);
        throw new UpstreamConnectError(upstream.label, error instanceof PostFailure ? error.cause : error);
    }
    const status = response.statusCode ?? 0;
    const {text, truncated} = await readText(response, status >= 200 && status <= 299 ? maxEmbeddingsAnswerBytes : undefined);
    if (status < 200 || status > 299)
        throw statusError(upstream.label, status, text, null);
    if (truncated)
        throw new EngineError("upstream_error",
            `The upstream ${upstream.label}'s embeddings answer is over ${maxEmbeddingsAnswerBytes} bytes.`);
    const answer = parseJson(upstream.label, text) as {data?: {index?: number, embedding?: unknown}[], usage?: {prompt_tokens?: number}};
    const data = [...answer.data ?? []].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    if (data.length !== request.inputs.length || data.some((item) => !Array.isArray(item.embedding)))
        throw new EngineError("upstream_error", `The upstream ${upstream.label} answered ${data.length} embeddings for `
            + `${request.inputs.length} inputs.`);
    return {vectors: data.map((item) => item.embedding as number[]), inputTokens: answer.usage?.prompt_tokens ?? 0};
}

function parseJson(label: string, text: string): unknown {
    try {
        return JSON.parse(text);
    } catch {
        throw new EngineError("upstream_error", `The upstream ${label} answered something that is not JSON: ${text.slice(0, 200)}`);
    }
}
