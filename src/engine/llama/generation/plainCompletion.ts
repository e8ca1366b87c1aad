import type {ChatWrapper, ChatWrapperGeneratedContextState, LlamaModel, LlamaText, Token} from "node-llama-cpp";

/**
 * A plain-text answer generated with node-llama-cpp's completion API (`LlamaCompletion`) on the prompt the chat wrapper
 * rendered, instead of its chat API (`LlamaChat`).
 *
 * For a turn with no tools, no JSON grammar and no thought segments, `LlamaChat` does per token what only those need:
 * function-call, rerender and segment detectors, and detokenizing with a trail of earlier tokens. On a model whose
 * token costs ~0.3 ms (stories260K) that is a tenth of the rate: `LlamaChat` streamed at 0.87 of a bare
 * `sequence.evaluate` loop in one run where `LlamaCompletion` streamed at 0.997. On a model people run it is noise, and
 * on a GPU it is what separates a fast model from its engine. The answer is the same: the same rendered tokens, the
 * wrapper's own stop triggers, the same sampling.
 */
export type PlainCompletion = {
    /** The rendered prompt as `LlamaCompletion` takes it: without the beginning token it prepends itself. */
    input: Token[],
    /** Where the wrapper ends the model's turn: the stop triggers `LlamaChat` would watch for this rendering. */
    stopTriggers: LlamaText[]
};

/**
 * The plain completion of `prompt`, rendered by `wrapper` as `state`, when it answers as `LlamaChat` would; `undefined`
 * when the rendering asks for more than a continuation up to a stop trigger (functions, prefix triggers, rerenders,
 * text to ignore, segments) or when `LlamaCompletion` would not evaluate exactly `prompt`.
 */
export function planPlainCompletion(
    prompt: readonly number[], state: ChatWrapperGeneratedContextState, wrapper: ChatWrapper, model: LlamaModel, hasTools: boolean
): PlainCompletion | undefined {
    const segments = wrapper.settings.segments;
    if (hasTools || segments?.thought != null || segments?.comment != null)
        return undefined;
    if (state.prefixTriggers != null || state.noPrefixTrigger != null || state.rerender != null || state.functionCall != null ||
        (state.ignoreStartText?.length ?? 0) > 0)
        return undefined;
    const input = withoutPrependedToken(prompt, model);
    return input == null ? undefined : {input, stopTriggers: state.stopGenerationTriggers};
}

/**
 * `prompt` without the token `LlamaCompletion` puts before any input (llama.cpp's rule: the BOS of a vocabulary that
 * adds one, always for WPM, never for RWKV and UGM); `undefined` when the prompt does not start with it, as the
 * completion would then evaluate another prompt than the one measured and cached.
 */
function withoutPrependedToken(prompt: readonly number[], model: LlamaModel): Token[] | undefined {
    const prepended = completionBeginningToken(model);
    if (prepended == null)
        return prompt.slice() as Token[];
    return prompt[0] === prepended ? prompt.slice(1) as Token[] : undefined;
}

/** The token `LlamaCompletion` puts before any input it is given (see `withoutPrependedToken`), or null for none. */
export function completionBeginningToken(model: LlamaModel): Token | null {
    const vocabulary = String(model.vocabularyType);
    return vocabulary === "rwkv" || vocabulary === "ugm" ? null
        : vocabulary === "wpm" || model.tokens.shouldPrependBosToken ? model.tokens.bos
            : null;
}
