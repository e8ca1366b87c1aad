import {EngineError} from "./EngineError.js";

/**
 * The engine's contract for raw-text generation and embeddings, beside chat generation (`types.ts`): no chat template,
 * the prompt is the model's input as it stands. Free of node-llama-cpp types, as the rest of the port.
 */

/** How tokens are sampled, for chat generation (`GenerationRequest.sampling`) and raw completion alike. */
export type SamplingOptions = {
    /** Defaults to 1 (OpenAI's default); 0 is greedy. */
    temperature?: number,
    /** Defaults to 1 (disabled). */
    topP?: number,
    seed?: number,
    presencePenalty?: number,
    frequencyPenalty?: number
};

/** A file of the editor's other context, which a fill-in-the-middle prompt puts before the prefix (llama.cpp's `input_extra`). */
export type ContextChunk = {filename: string, text: string};

/** What a request shares with chat generation to reach its model and stay within its owner's cache. */
export type RawRequestRouting = {
    /** The library model that answers (see `GenerationRequest.model`); absent: the default model. */
    model?: string,
    /** Whose cached prompts this one may reuse (see `GenerationRequest.cachePartition`). Defaults to `""`. */
    cachePartition?: string,
    /** See `PromptShape.keepAliveMs`. */
    keepAliveMs?: number | null,
    /** See `PromptShape.usedBy`. */
    usedBy?: string,
    signal?: AbortSignal
};

export type CompletionRequest = RawRequestRouting & {
    /** The text to continue; with `suffix`, the text before the gap. */
    prompt: string,
    /**
     * Fill in the middle: the text after the gap. The prompt is then built with the model's own FIM tokens; a model
     * without them refuses the request (`unsupported`) before anything is evaluated.
     */
    suffix?: string,
    /** With `suffix`: other files the model sees first, with the model's repository tokens where it has them. */
    extra?: readonly ContextChunk[],
    /** Output token cap; defaults to what is left of the context. */
    maxOutputTokens?: number,
    sampling?: SamplingOptions & {topK?: number},
    /** Text that ends the completion; the text is cut before it. Defaults to none. */
    stopSequences?: readonly string[],
    /** Stop once this many ms of generation have passed and a newline was generated (llama.cpp's `t_max_predict_ms`). */
    timeLimitMs?: number,
    /** Called with each piece of generated text, in order. */
    onText?: (text: string) => void
};

export type CompletionResult = {
    stopReason: "stop" | "length" | "abort",
    /** The stop sequence the text ended at, if any. */
    stopSequence?: string,
    text: string,
    usage: {inputTokens: number, cachedTokens: number, outputTokens: number},
    timings: {promptMs: number, generationMs: number}
};

export type EmbeddingRequest = RawRequestRouting & {
    /** Texts, or token id lists, each embedded on its own. */
    inputs: readonly (string | readonly number[])[]
};

export type EmbeddingResult = {
    /** One vector per input, in order, as the model pools it (its own size). */
    vectors: number[][],
    /** Tokens of all inputs together. */
    inputTokens: number
};

/** Raw completion and embeddings: what an engine that can do them adds to `ChatEngine`. */
export interface RawEngine {
    complete(request: CompletionRequest): Promise<CompletionResult>;
    embed(request: EmbeddingRequest): Promise<EmbeddingResult>;
}

/**
 * `engine` as a `RawEngine`, or the `unsupported` refusal for an engine that has neither (the local engine and the
 * upstream engine both do; a routed engine asks the model's own).
 */
export function rawEngine(engine: Partial<RawEngine>, model?: string): RawEngine {
    if (engine.complete == null || engine.embed == null)
        throw new EngineError("unsupported", `Text completions, infill and embeddings are not supported by this engine` +
            `${model == null ? "" : ` (model '${model}')`}: use a local model.`, {param: "model"});
    return engine as RawEngine;
}
