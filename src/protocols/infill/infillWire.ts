import type {CompletionResult} from "../../engine/completionTypes.js";

/** llama.cpp server's `/infill` answer: the text, whether it is the last, and its counts and timings. */
export type InfillAnswerBody = {
    content: string,
    stop: boolean,
    model?: string,
    tokens_predicted?: number,
    tokens_evaluated?: number,
    tokens_cached?: number,
    /** Why it stopped: the end of the text (`eos`), a stop word (`word`), a token or time limit (`limit`). */
    stop_type?: "eos" | "word" | "limit" | "none",
    stopping_word?: string,
    timings?: InfillTimings
};

export type InfillTimings = {
    prompt_n: number, prompt_ms: number, prompt_per_token_ms: number, prompt_per_second: number,
    predicted_n: number, predicted_ms: number, predicted_per_token_ms: number, predicted_per_second: number
};

/** A piece of a streamed answer: llama.cpp's chunk before the last. */
export function infillChunk(text: string): InfillAnswerBody {
    return {content: text, stop: false};
}

/** The whole answer (`content` empty for the last chunk of a stream, whose text went before). */
export function infillAnswer(result: CompletionResult, model: string, content: string): InfillAnswerBody {
    const {usage, timings} = result;
    const evaluated = usage.inputTokens - usage.cachedTokens;
    return {
        content, stop: true, model,
        tokens_predicted: usage.outputTokens,
        tokens_evaluated: usage.inputTokens,
        tokens_cached: usage.cachedTokens,
        stop_type: result.stopReason === "length" ? "limit" : result.stopSequence != null ? "word" : "eos",
        stopping_word: result.stopSequence ?? "",
        timings: {
            prompt_n: evaluated, prompt_ms: timings.promptMs, ...rates(evaluated, timings.promptMs, "prompt"),
            predicted_n: usage.outputTokens, predicted_ms: timings.generationMs,
            ...rates(usage.outputTokens, timings.generationMs, "predicted")
        } as InfillTimings
    };
}

function rates(tokens: number, ms: number, name: "prompt" | "predicted"): Record<string, number> {
    return {
        [`${name}_per_token_ms`]: tokens === 0 ? 0 : ms / tokens,
        [`${name}_per_second`]: ms === 0 ? 0 : tokens / (ms / 1000)
    };
}
