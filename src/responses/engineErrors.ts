import {EngineError} from "../engine/errors.js";
import {ApiError, contextLengthExceeded, internalError, modelNotLoaded, serverOverloaded} from "../protocol/errors.js";

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
            case "context_overflow": return contextLengthExceeded(error.message);
            case "not_ready": return modelNotLoaded(error.message);
            case "aborted": return new ApiError(499, error.message, {type: "invalid_request_error", code: "request_aborted"});
            case "load_failed": return new ApiError(500, error.message, {code: "server_error"});
            case "upstream_unavailable": return new ApiError(502, error.message, {type: "server_error", code: "upstream_unavailable"});
            case "upstream_busy": return error.details.status === 429
                ? new ApiError(429, error.message, {code: "rate_limit_exceeded", retryAfterSeconds: error.details.retryAfterSeconds})
                : new ApiError(503, error.message, {code: "server_overloaded", retryAfterSeconds: error.details.retryAfterSeconds ?? 1});
            case "upstream_timeout": return new ApiError(504, error.message, {type: "server_error", code: "upstream_timeout"});
            case "upstream_rejected": return new ApiError(400, error.message, {code: "upstream_rejected"});
            case "upstream_error": return new ApiError(502, error.message, {type: "server_error", code: "upstream_error"});
        }
    }
    // Not an engine failure the API defines: a generic 500 whose cause is logged by whoever reports it.
    return internalError(error);
}
