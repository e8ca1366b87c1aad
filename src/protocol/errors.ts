/**
 * Errors in OpenAI's wire shape: `{"error": {"message", "type", "param", "code"}}`.
 *
 * Every layer throws `ApiError`; only the HTTP layer turns it into a response,
 * so the status and the shape are decided once, where the error is raised.
 */
export type ApiErrorType =
    | "invalid_request_error"
    | "authentication_error"
    | "permission_error"
    | "not_found_error"
    | "conflict_error"
    | "rate_limit_error"
    | "server_error"
    | "service_unavailable_error";

export type ApiErrorBody = {
    error: {message: string, type: ApiErrorType, param: string | null, code: string | null}
};

export type ApiErrorOptions = {
    type?: ApiErrorType,
    param?: string | null,
    code?: string | null,
    /** Seconds a client should wait before retrying (the `Retry-After` header of a 429 or 503). */
    retryAfterSeconds?: number,
    /** The failure behind a generic 500: logged, never sent. */
    cause?: unknown
};

export class ApiError extends Error {
    public readonly status: number;
    public readonly type: ApiErrorType;
    public readonly param: string | null;
    public readonly code: string | null;
    public readonly retryAfterSeconds: number | undefined;

    public constructor(status: number, message: string, options: ApiErrorOptions = {}) {
        super(message, options.cause === undefined ? undefined : {cause: options.cause});
        this.name = "ApiError";
        this.status = status;
        this.type = options.type ?? defaultTypeForStatus(status);
        this.param = options.param ?? null;
        this.code = options.code ?? null;
        this.retryAfterSeconds = options.retryAfterSeconds;
    }

    public toBody(): ApiErrorBody {
        return {error: {message: this.message, type: this.type, param: this.param, code: this.code}};
    }
}

function defaultTypeForStatus(status: number): ApiErrorType {
    switch (status) {
        case 401: return "authentication_error";
        case 403: return "permission_error";
        case 404: return "not_found_error";
        case 409: return "conflict_error";
        case 429: return "rate_limit_error";
        case 503: return "service_unavailable_error";
        default: return status >= 500 ? "server_error" : "invalid_request_error";
    }
}

export function invalidRequest(message: string, param: string | null = null, code: string | null = null): ApiError {
    return new ApiError(400, message, {param, code: code ?? (param == null ? null : "invalid_value")});
}

/** A body that is not a JSON object (no JSON content type, an array, a string). */
export function invalidRequestBody(): ApiError {
    return new ApiError(400, "The request body must be a JSON object.", {code: "invalid_request_body"});
}

export function unsupported(param: string, message: string): ApiError {
    return new ApiError(400, message, {param, code: "unsupported_parameter"});
}

export function responseNotFound(id: string, param: string | null = null): ApiError {
    return new ApiError(404, `No response found with id '${id}'.`, {param, code: param === "previous_response_id" ? "previous_response_not_found" : "not_found"});
}

export function contextLengthExceeded(message: string): ApiError {
    return new ApiError(400, message, {param: "input", code: "context_length_exceeded"});
}

/** Admission pressure (background jobs, stream readers): retry later. */
export function rateLimited(message: string): ApiError {
    return new ApiError(429, message, {code: "rate_limit_exceeded", retryAfterSeconds: 1});
}

export function serverOverloaded(message = "The generation queue is full; retry shortly."): ApiError {
    return new ApiError(503, message, {code: "server_overloaded", retryAfterSeconds: 1});
}

/** A model is loaded from the editor or the command line, which takes seconds: a client may retry after a while. */
export function modelNotLoaded(message = "No model is loaded."): ApiError {
    return new ApiError(503, message, {code: "model_not_loaded", retryAfterSeconds: 5});
}

/**
 * A failure nobody anticipated: the client learns only that the server failed (as OpenAI words it); the
 * failure itself, whose wording may be a library's or carry a stack, is kept as the cause for the log.
 */
export function internalError(cause: unknown): ApiError {
    return new ApiError(500, "The server had an error while processing your request.", {code: "server_error", cause});
}

/** What a log says about an error: the failure behind it with its stack when there is one, else its message. */
export function describeForLog(error: ApiError): string {
    const cause = error.cause;
    if (cause instanceof Error)
        return cause.stack ?? `${cause.name}: ${cause.message}`;
    return cause === undefined ? error.message : String(cause);
}

/** The `Retry-After` seconds of an error: its own, else 1 for every 429 and 503 (the OpenAI SDKs honour it). */
export function retryAfterSeconds(error: ApiError): number | undefined {
    if (error.status !== 429 && error.status !== 503)
        return undefined;
    return error.retryAfterSeconds ?? 1;
}
