import type {EngineKind} from "../../engine/types.js";
import {toApiError} from "../../responses/engineErrors.js";

/** A failed `vscode.lm` request as the editor shows it: a message that names the fix; `notFound` for no usable model. */
export type LmFailure = {message: string, notFound: boolean};

/**
 * What the chat view says when a request fails. The editor shows a provider's message as it is, so each says what to
 * do: load a model, pick the loaded one, start a new chat, retry. Anything else keeps the server's own message.
 */
export function lmFailure(error: unknown, engineKind: EngineKind): LmFailure {
    const apiError = toApiError(error);
    switch (apiError.code) {
        case "model_not_loaded":
            return {
                message: engineKind === "upstream"
                    ? "Local Responses: the upstream servers are not connected: run Local Responses: Load Model…"
                    : "Local Responses: no model loaded: run Local Responses: Load Model…",
                notFound: true
            };
        case "model_not_found":
            return {message: `Local Responses: ${apiError.message} Pick the loaded model in the model picker.`, notFound: true};
        case "context_length_exceeded":
            return {
                message: `Local Responses: ${apiError.message} Start a new chat, or load the model with a larger `
                    + "localResponses.contextSize.",
                notFound: false
            };
        case "server_overloaded":
        case "rate_limit_exceeded":
            return {message: `Local Responses: the model is busy (${apiError.message}): retry shortly.`, notFound: false};
        default:
            return {message: `Local Responses: ${apiError.message}`, notFound: false};
    }
}
