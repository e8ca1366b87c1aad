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

export class ApiError extends Error {
    public readonly status: number;
    public readonly type: ApiErrorType;
    public readonly param: string | null;
    public readonly code: string | null;

    public constructor(status: number, message: string, options: {type?: ApiErrorType, param?: string | null, code?: string | null} = {}) {
        super(message);
        this.name = "ApiError";
        this.status = status;
        this.type = options.type ?? defaultTypeForStatus(status);
        this.param = options.param ?? null;
        this.code = options.code ?? null;
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
    return new ApiError(429, message, {code: "rate_limit_exceeded"});
}

export function serverOverloaded(message = "The generation queue is full; retry shortly."): ApiError {
    return new ApiError(503, message, {code: "server_overloaded"});
}
