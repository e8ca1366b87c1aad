import {EngineError} from "../engine/errors.js";
import {ApiError, contextLengthExceeded, serverOverloaded} from "./errors.js";

/** Maps an engine failure to the API error a client should see. */
export function toApiError(error: unknown): ApiError {
    if (error instanceof ApiError)
        return error;
    if (error instanceof EngineError) {
        switch (error.kind) {
            case "queue_full": return serverOverloaded(error.message);
            case "context_overflow": return contextLengthExceeded(error.message);
            case "not_ready": return new ApiError(503, error.message, {code: "model_not_loaded"});
            case "aborted": return new ApiError(499, error.message, {type: "invalid_request_error", code: "request_aborted"});
            case "load_failed": return new ApiError(500, error.message, {code: "server_error"});
        }
    }
    return new ApiError(500, `Internal error: ${error instanceof Error ? error.message : String(error)}`, {code: "server_error"});
}
