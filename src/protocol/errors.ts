/**
 * Errors in OpenAI's wire shape: `{"error": {"message", "type", "param", "code"}}`.
 *
 * Every layer throws `ApiError`; only the HTTP layer turns it into a response,
 * so the status and the shape are decided once, where the error is raised.
 */
export type ApiErrorType =
    | "invalid_request_error" | "authentication_error" | "permission_error" | "not_found_error" | "conflict_error"
    | "rate_limit_error" | "server_error" | "service_unavailable_error";

/**
 * The `code` of a 400 about the request's content. Request bodies are checked by JSON Schema
 * (`src/responses/requestSchemas/`), whose failures `schemaErrors.ts` maps to these codes.
 */
export type InvalidRequestCode =
    | "invalid_value" | "invalid_type" | "missing_required_parameter" | "unknown_parameter" | "unsupported_parameter"
    | "unsupported_value" | "unsupported_content_type" | "unsupported_tool_type" | "unsupported_message_type"
    | "invalid_request_body" | "invalid_message" | "invalid_json" | "invalid_cursor" | "nesting_too_deep"
    | "invalid_schema" | "schema_too_deep" | "schema_too_large" | "unsupported_schema_keyword"
    | "missing_tool_output" | "missing_tool_call" | "invalid_encrypted_content" | "context_length_exceeded"
    | "previous_response_not_finished" | "previous_response_unusable" | "not_cancellable" | "array_above_max_length";

/** Every `code` this server sends, each made by one constructor below (OpenAI's own codes where it has one). */
export type ApiErrorCode =
    | InvalidRequestCode
    // The HTTP envelope, before any route.
    | "invalid_body_encoding" | "request_too_large" | "unsupported_media_type" | "invalid_path" | "missing_host"
    | "invalid_host" | "origin_not_allowed" | "invalid_api_key" | "request_header_fields_too_large" | "request_timeout"
    | "invalid_http_request" | "unknown_route" | "method_not_allowed" | "invalid_websocket_handshake"
    // Lookups.
    | "not_found" | "previous_response_not_found" | "conversation_not_found" | "item_not_found" | "model_not_found"
    // State and admission.
    | "events_expired" | "events_not_retained" | "response_active" | "input_too_large" | "rate_limit_exceeded"
    | "too_many_pending_turns" | "request_aborted" | "server_overloaded" | "server_shutting_down" | "model_not_loaded"
    | "model_memory_exceeded" | "model_crashed" | "admin_key_required"
    | "server_error" | "upstream_unavailable" | "upstream_timeout" | "upstream_rejected" | "upstream_error"
    // Generated output that failed the validation its request asked for, where no `failed` response carries it.
    | "invalid_output" | "invalid_tool_arguments"
    // The durable store.
    | "insufficient_storage" | "storage_unavailable";

export type ApiErrorBody = {
    error: {message: string, type: ApiErrorType, param: string | null, code: ApiErrorCode | null}
};

/** How far a prompt overflowed: its tokens (counted, a lower bound, or an upstream's estimate) and the context size. */
export type PromptOverflow = {promptTokens: number, contextSize: number};

export type ApiErrorOptions = {
    type?: ApiErrorType,
    param?: string | null,
    code?: ApiErrorCode | null,
    /** Seconds a client should wait before retrying (the `Retry-After` header of a 429 or 503). */
    retryAfterSeconds?: number,
    /** The failure behind a generic 500: logged, never sent. */
    cause?: unknown,
    /** `context_length_exceeded` where the prompt was measured: what Anthropic's wording of it needs. */
    overflow?: PromptOverflow
};

export class ApiError extends Error {
    public readonly status: number;
    public readonly type: ApiErrorType;
    public readonly param: string | null;
    public readonly code: ApiErrorCode | null;
    public readonly retryAfterSeconds: number | undefined;
    public readonly overflow: PromptOverflow | undefined;

    public constructor(status: number, message: string, options: ApiErrorOptions = {}) {
        super(message, options.cause === undefined ? undefined : {cause: options.cause});
        this.name = "ApiError";
        this.status = status;
        this.type = options.type ?? defaultTypeForStatus(status);
        this.param = options.param ?? null;
        this.code = options.code ?? null;
        this.retryAfterSeconds = options.retryAfterSeconds;
        this.overflow = options.overflow;
    }

    /** The status sent, where anything still is: the pseudo-status 499 (the client went away) goes out as 400. */
    public get sentStatus(): number {
        return this.status === 499 ? 400 : this.status;
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

// The catalogue: one constructor per code. Nothing outside this file writes `new ApiError(` (a test holds it).

// 400: the request's content.

/** A 400 about one parameter's content; JSON Schema failures reach it through `schemaErrors.ts`. */
export function invalidRequest(message: string, param: string | null = null, code: InvalidRequestCode | null = null): ApiError {
    return new ApiError(400, message, {param, code: code ?? (param == null ? null : "invalid_value")});
}

/** A body that is not a JSON object (no JSON content type, an array, a string). */
export function invalidRequestBody(): ApiError {
    return new ApiError(400, "The request body must be a JSON object.", {code: "invalid_request_body"});
}

export function unsupported(param: string, message: string): ApiError {
    return new ApiError(400, message, {param, code: "unsupported_parameter"});
}

export function unknownParameter(param: string): ApiError {
    return new ApiError(400, `Unknown parameter: '${param}'.`, {param, code: "unknown_parameter"});
}

/** `what` is "request body" or "message" (a WebSocket message). */
export function invalidJson(what: string, detail: string): ApiError {
    return new ApiError(400, `The ${what} is not valid JSON: ${detail}`, {code: "invalid_json"});
}

export function nestingTooDeep(maxDepth: number, param: string | null): ApiError {
    return new ApiError(400,
        `The request nests JSON objects and arrays deeper than ${maxDepth} levels${param == null ? "" : ` (in '${param}')`}.`,
        {param, code: "nesting_too_deep"});
}

export function contextLengthExceeded(message: string, overflow?: PromptOverflow): ApiError {
    return new ApiError(400, message, {param: "input", code: "context_length_exceeded", overflow});
}

/** The engine behind the server (an upstream Chat Completions server) refused the request as malformed. */
export function upstreamRejected(message: string): ApiError {
    return new ApiError(400, message, {code: "upstream_rejected"});
}

// 4xx: the HTTP envelope, before any route.

export function invalidBodyEncoding(encoding: string): ApiError {
    return new ApiError(400, `The request body is not valid ${encoding} data, as its Content-Encoding header says it is.`,
        {code: "invalid_body_encoding"});
}

export function invalidPath(): ApiError {
    return new ApiError(400, "The URL path holds a malformed percent-escape ('%' must be followed by two hex digits that decode to UTF-8).",
        {code: "invalid_path"});
}

export function invalidHttpRequest(message: string): ApiError {
    return new ApiError(400, message, {code: "invalid_http_request"});
}

export function invalidWebSocketHandshake(detail: string): ApiError {
    return new ApiError(400, `Invalid WebSocket handshake: ${detail}.`, {code: "invalid_websocket_handshake"});
}

export function missingHost(): ApiError {
    return new ApiError(400, "The request has no Host header, which HTTP/1.1 requires: send 'Host: localhost' (or 127.0.0.1, [::1]).",
        {code: "missing_host"});
}

/** A 4xx an HTTP library raised (Express, its router, body-parser), kept at its status with no code of ours. */
export function httpLibraryError(status: number, message: string): ApiError {
    return new ApiError(status, message);
}

export function invalidApiKey(): ApiError {
    return new ApiError(401, "Invalid or missing API key. Send it as 'Authorization: Bearer KEY' or 'x-api-key: KEY'.",
        {code: "invalid_api_key"});
}

export function invalidHost(): ApiError {
    return new ApiError(403, "The Host header must name a loopback address (localhost, 127.0.0.1 or [::1]).", {code: "invalid_host"});
}

export function originNotAllowed(origin: string): ApiError {
    return new ApiError(403, `Origin '${origin}' is not allowed. Configure allowed origins to use the API from a browser.`,
        {code: "origin_not_allowed"});
}

/** The 403 a key gets for what only the operator's keys may do (a model library's unload and pin). */
export function notAnOperatorKey(action: string): ApiError {
    const hint = "start the server with --admin-api-key KEY and use that key";
    return new ApiError(403, `${action} is for the operator's API keys: ${hint}.`, {code: "admin_key_required"});
}

export function unknownRoute(message: string): ApiError {
    return new ApiError(404, message, {code: "unknown_route"});
}

export function methodNotAllowed(message: string): ApiError {
    return new ApiError(405, message, {code: "method_not_allowed"});
}

export function requestTimeout(): ApiError {
    return new ApiError(408, "The request was not received in time.", {type: "invalid_request_error", code: "request_timeout"});
}

export function requestTooLarge(message: string): ApiError {
    return new ApiError(413, message, {code: "request_too_large"});
}

export function unsupportedMediaType(message: string): ApiError {
    return new ApiError(415, message, {code: "unsupported_media_type"});
}

export function headerFieldsTooLarge(): ApiError {
    return new ApiError(431, "The request line and headers exceed 16 KB.", {code: "request_header_fields_too_large"});
}

// 404: lookups.

export function responseNotFound(id: string, param: string | null = null): ApiError {
    return new ApiError(404, `No response found with id '${id}'.`,
        {param, code: param === "previous_response_id" ? "previous_response_not_found" : "not_found"});
}

export function conversationNotFound(id: string, param: string | null = null): ApiError {
    return new ApiError(404, `No conversation found with id '${id}'.`, {param, code: "conversation_not_found"});
}

export function itemNotFound(message: string, param: string | null = null): ApiError {
    return new ApiError(404, message, {param, code: "item_not_found"});
}

export function modelNotFound(requested: string, served: string | readonly string[]): ApiError {
    const names = typeof served === "string" ? `'${served}'` : served.map((name) => `'${name}'`).join(", ");
    return new ApiError(404, `The model '${requested}' does not exist; this server serves ${names}.`,
        {param: "model", code: "model_not_found"});
}

// 409, 410, 413: state.

export function eventsNotRetained(id: string): ApiError {
    return new ApiError(409,
        `The events of response '${id}' are not kept (only background responses keep them, until their record expires); retrieve it `
            + `without 'stream'.`, {code: "events_not_retained"});
}

export function responseActive(id: string, status: string): ApiError {
    return new ApiError(409, `Response '${id}' is still ${status}: cancel it before deleting it.`, {code: "response_active"});
}

export function eventsExpired(after: number, firstRetained: number): ApiError {
    return new ApiError(410,
        `Events after ${after} are no longer retained (the oldest kept is ${firstRetained}); retrieve the response instead.`,
        {param: "starting_after", code: "events_expired"});
}

export function inputTooLarge(bytes: number, limit: number): ApiError {
    return new ApiError(413, `The input of this background response is ${bytes} bytes; the limit is ${limit}.`,
        {param: "input", code: "input_too_large"});
}

// 429, 499, 5xx: admission and failures.

/** Admission pressure (background jobs, stream readers): retry later. */
export function rateLimited(message: string, retryAfter = 1): ApiError {
    return new ApiError(429, message, {code: "rate_limit_exceeded", retryAfterSeconds: retryAfter});
}

export function tooManyPendingTurns(): ApiError {
    return new ApiError(429, "Too many response.create messages are waiting on this connection: wait for the running turn to end.",
        {code: "too_many_pending_turns"});
}

/** The client went away (a pseudo-status: never sent over HTTP, and a WebSocket error event reports it as 400). */
export function requestAborted(message = "The client closed the connection."): ApiError {
    return new ApiError(499, message, {type: "invalid_request_error", code: "request_aborted"});
}

export function serverOverloaded(message = "The generation queue is full; retry shortly.", retryAfter = 1): ApiError {
    return new ApiError(503, message, {code: "server_overloaded", retryAfterSeconds: retryAfter});
}

/** A library model that cannot fit the memory budget even alone: what it needs, what the server may use, what to do. */
export function modelMemoryExceeded(model: string, requiredBytes: number, budgetBytes: number): ApiError {
    const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(2)} GiB`;
    return new ApiError(503, `The model '${model}' needs about ${gib(requiredBytes)} loaded (weights and context) and the `
        + `server's memory budget is ${gib(budgetBytes)}: raise --memory-budget, or give the model a smaller context_size in `
        + `the presets file.`, {code: "model_memory_exceeded"});
}

/** A library model's own process ended under the request; the model loads again on the next request, so a retry may answer. */
export function modelCrashed(message: string): ApiError {
    return new ApiError(503, message, {code: "model_crashed"});
}

export function serverShuttingDown(): ApiError {
    return new ApiError(503, "The server is shutting down.", {code: "server_shutting_down"});
}

/** A model is loaded from the editor or the command line, which takes seconds: a client may retry after a while. */
export function modelNotLoaded(message = "No model is loaded."): ApiError {
    return new ApiError(503, message, {code: "model_not_loaded", retryAfterSeconds: 5});
}

/**
 * The durable store could not write what this request stored, after retries: the disk is full (507, a quota too) or
 * refuses otherwise (503, EIO, a closed database). The data folder and the cause are named, since whoever runs the
 * server fixes them; nothing was acknowledged as stored.
 */
export function storageFailed(folder: string, cause: string, full: boolean): ApiError {
    const message = `The server could not store this: writing to its data folder ${folder} failed (${cause}).`;
    return full
        ? new ApiError(507, `${message} Free space on that disk.`, {code: "insufficient_storage"})
        : new ApiError(503, `${message} Retry later.`, {code: "storage_unavailable", retryAfterSeconds: 5});
}

/** The engine failed in a way it reports itself (a model that would not load): its message is safe to send. */
export function engineFailed(message: string): ApiError {
    return new ApiError(500, message, {code: "server_error"});
}

/**
 * The model's output failed the validation its request asked for (a strict `json_schema`, a strict tool's arguments)
 * where the API has no `failed` response to carry it (Chat Completions): the server could not produce a valid answer.
 */
export function generatedOutputInvalid(code: "invalid_output" | "invalid_tool_arguments", message: string): ApiError {
    return new ApiError(500, message, {type: "server_error", code});
}

export function upstreamFailed(code: "upstream_unavailable" | "upstream_timeout" | "upstream_error", message: string): ApiError {
    return new ApiError(code === "upstream_timeout" ? 504 : 502, message, {type: "server_error", code});
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
