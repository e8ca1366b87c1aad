import {EngineError} from "../engine/EngineError.js";
import {
    ApiError, contextLengthExceeded, engineFailed, generatedOutputInvalid, internalError, invalidRequest, modelCrashed, modelMemoryExceeded,
    modelNotFound, modelNotLoaded, rateLimited, requestAborted, serverOverloaded, upstreamFailed, upstreamRejected
} from "../protocol/errors.js";
import type {ResponseObject} from "../protocol/wire.js";

/**
 * Maps an engine failure to the API error a client should see. Anything else (a bug, a library's own error)
 * becomes a generic 500 carrying the original as its cause; HTTP-level errors are the server's to map.
 */
export function toApiError(error: unknown): ApiError {
    if (error instanceof ApiError)
        return error;
    if (error instanceof EngineError) {
        switch (error.kind) {
            case "queue_full": return serverOverloaded(error.message);
            case "context_overflow": return contextLengthExceeded(error.message, error.details.overflow);
            case "not_ready": return modelNotLoaded(error.message);
            case "aborted": return requestAborted(error.message);
            case "load_failed": return engineFailed(error.message);
            case "model_not_found": return modelNotFound(error.details.model ?? "", error.details.served ?? []);
            case "model_memory_exceeded": return modelMemoryExceeded(error.details.model ?? "",
                error.details.memory?.requiredBytes ?? 0, error.details.memory?.budgetBytes ?? 0);
            case "model_crashed": return modelCrashed(error.message);
            case "invalid_schema": return invalidRequest(error.message, error.details.tool == null ? null : "tools", "invalid_schema");
            case "upstream_unavailable": return upstreamFailed("upstream_unavailable", error.message);
            case "upstream_busy": return error.details.status === 429
                ? rateLimited(error.message, error.details.retryAfterSeconds)
                : serverOverloaded(error.message, error.details.retryAfterSeconds ?? 1);
            case "upstream_timeout": return upstreamFailed("upstream_timeout", error.message);
            case "upstream_rejected": return upstreamRejected(error.message);
            case "upstream_error": return upstreamFailed("upstream_error", error.message);
            case "unsupported": return invalidRequest(error.message, error.details.param ?? null, "unsupported_value");
        }
    }
    // Not an engine failure the API defines: a generic 500 whose cause is logged by whoever reports it.
    return internalError(error);
}

/**
 * A `failed` response as the error a face without Responses' `failed` object reports (Chat Completions, `vscode.lm`):
 * its output did not validate (`invalid_output`, `invalid_tool_arguments`), or the engine failed mid-stream.
 */
export function failedResponseError(response: ResponseObject): ApiError {
    const {code, message} = response.error ?? {code: "server_error", message: "The generation failed."};
    return isOutputFailure(response)
        ? generatedOutputInvalid(code as "invalid_output" | "invalid_tool_arguments", message)
        : engineFailed(message);
}

/** A response that failed because the model's output did not validate (not because the engine failed). */
export function isOutputFailure(response: ResponseObject): boolean {
    const code = response.error?.code;
    return code === "invalid_output" || code === "invalid_tool_arguments";
}
