import {STATUS_CODES} from "node:http";
import type {ErrorRequestHandler, Response} from "express";
import {toApiError} from "../../responses/engineErrors.js";
import {ApiError, describeForLog, httpLibraryError, invalidPath, retryAfterSeconds} from "../../protocol/errors.js";
import {isMessagesPath, toMessagesError} from "../../protocols/messages/messagesErrors.js";

/**
 * The last handler: every error leaves as `{"error": {...}}` with its status; the server keeps serving.
 * A 429 or 503 says when to retry (`Retry-After`); a 500 says only that the server failed, and its cause goes to the log.
 */
export function errorHandler(log?: (line: string) => void): ErrorRequestHandler {
    return (error, req, res, _next) => {
        const apiError = fromHttpError(error) ?? toApiError(error);
        if (apiError.status >= 500)
            log?.(`error: ${req.method} ${req.originalUrl.split("?")[0]}: ${describeForLog(apiError)}`);
        if (res.headersSent) {
            res.end();
            return;
        }
        sendApiError(res, apiError);
    };
}

/** Answers with the error's status and body (Anthropic's on its Messages paths), and `Retry-After` on a 429 or 503. */
export function sendApiError(res: Response, apiError: ApiError): void {
    const retryAfter = retryAfterSeconds(apiError);
    if (retryAfter != null)
        res.setHeader("Retry-After", String(retryAfter));
    if (isMessagesPath(res.req.originalUrl)) {
        const {status, body} = toMessagesError(apiError);
        res.status(status).json(body);
        return;
    }
    res.status(apiError.sentStatus).json(apiError.toBody());
}

/**
 * Errors raised by Express, its router and body-parser carry a 4xx `status` (http-errors style): they stay that
 * 4xx. Their message is sent only when the library marks it safe to show (`expose`), else the status text.
 */
export function fromHttpError(error: unknown): ApiError | undefined {
    if (error instanceof ApiError || error == null || typeof error !== "object")
        return undefined;
    const {status, statusCode, expose, message} = error as {status?: unknown, statusCode?: unknown, expose?: unknown, message?: unknown};
    const code = status ?? statusCode;
    if (typeof code !== "number" || !Number.isInteger(code) || code < 400 || code > 499)
        return undefined;
    // The router decodes `:id` with decodeURIComponent and marks its URIError 400.
    if (error instanceof URIError)
        return invalidPath();
    const text = expose === true && typeof message === "string" && message !== "" ? message : STATUS_CODES[code] ?? "Bad request";
    return httpLibraryError(code, text);
}
