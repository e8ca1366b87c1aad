import type {GenerationUsage, TokenLogprob} from "../engine/types.js";
import type {Logprob, UnnumberedEvent, Usage} from "../protocol/wire.js";

// Engine figures and errors in their wire spelling: the stream's `error` event, `usage`, token log-probabilities.

/**
 * The standard `error` stream event, for an error's body (`ApiError.toBody().error`) or a code and message of the
 * stream's own (`type` then `invalid_request_error`): the spec nests the payload, OpenAI's SDK reads `code`/`message`
 * at the top.
 */
export function streamErrorEvent(error: {code: string | null, message: string, type?: string, param?: string | null}): UnnumberedEvent {
    const body = {type: error.type ?? "invalid_request_error", code: error.code, message: error.message, param: error.param ?? null};
    return {type: "error", code: body.code ?? body.type, message: body.message, param: body.param, error: body};
}

export function toUsage(usage: GenerationUsage): Usage {
    return {
        input_tokens: usage.inputTokens,
        input_tokens_details: {cached_tokens: usage.cachedTokens},
        output_tokens: usage.outputTokens,
        output_tokens_details: {reasoning_tokens: usage.reasoningTokens},
        total_tokens: usage.inputTokens + usage.outputTokens
    };
}

export function toWireLogprob({token, logprob, bytes, topLogprobs}: TokenLogprob): Logprob {
    return {token, logprob, bytes, top_logprobs: topLogprobs};
}
