import type {ApiError} from "../../protocol/errors.js";
import type {MessagesErrorBody, MessagesErrorType} from "./messagesWire.js";

/** Anthropic's status for an overloaded server: its clients retry it (and 503 on Anthropic's paths means nothing else). */
const overloadedStatus = 529;

/**
 * `/v1/messages` and `/v1/messages/count_tokens` (with or without `/v1`, in any case, as express routes them): their
 * errors are Anthropic's shape.
 */
export function isMessagesPath(url: string): boolean {
    return /^(\/v1)?\/messages(\/|\?|$)/i.test(url);
}

/**
 * An error as Anthropic's API sends it: `{"type": "error", "error": {"type", "message"}}`, with its statuses: a full
 * queue, a server shutting down or a model not loaded yet are 529 `overloaded_error`; any other server failure is
 * 500 `api_error`; a client's error keeps its 4xx.
 */
export function toMessagesError(error: ApiError): {status: number, body: MessagesErrorBody} {
    const status = error.sentStatus;
    if (status === 503)
        return {status: overloadedStatus, body: errorBody("overloaded_error", error.message)};
    if (status >= 500)
        return {status: 500, body: errorBody("api_error", error.message)};
    if (error.code === "context_length_exceeded")
        return {status, body: errorBody("invalid_request_error", promptTooLongMessage(error))};
    return {status, body: errorBody(clientErrorType(status), error.message)};
}

/**
 * A prompt longer than the context, in Anthropic's words: `prompt is too long: N tokens > M maximum` is what Claude
 * Code matches to compact the conversation and retry (any other wording ends its turn with the error). M is the
 * longest prompt the context takes, one token short of it, as one token of output must fit. Where the prompt was not
 * measured (an upstream's own refusal, an overflow during generation) the reason follows the same opening words,
 * which Claude Code also reads as this error.
 */
function promptTooLongMessage(error: ApiError): string {
    if (error.overflow == null)
        return `prompt is too long: ${error.message}`;
    const {promptTokens, contextSize} = error.overflow;
    return `prompt is too long: ${promptTokens} tokens > ${contextSize - 1} maximum`;
}

export function errorBody(type: MessagesErrorType, message: string): MessagesErrorBody {
    return {type: "error", error: {type, message}};
}

function clientErrorType(status: number): MessagesErrorType {
    switch (status) {
        case 401: return "authentication_error";
        case 403: return "permission_error";
        case 404: return "not_found_error";
        case 413: return "request_too_large";
        case 429: return "rate_limit_error";
        default: return "invalid_request_error";
    }
}
