import type {ErrorRequestHandler} from "express";
import {toApiError} from "../../responses/engineErrors.js";

/** The last handler: every error leaves as `{"error": {...}}` with its status; the server keeps serving. */
export function errorHandler(log?: (line: string) => void): ErrorRequestHandler {
    return (error, _req, res, _next) => {
        const apiError = toApiError(error);
        if (apiError.status >= 500)
            log?.(`error: ${apiError.message}`);
        if (res.headersSent) {
            res.end();
            return;
        }
        res.status(apiError.status === 499 ? 400 : apiError.status).json(apiError.toBody());
    };
}
