import type {RequestHandler} from "express";
import {originNotAllowed} from "../../protocol/errors.js";

/**
 * Browsers send `Origin`; other clients do not. A request from a browser origin that is not configured
 * is refused (403), and no CORS headers are sent unless origins are configured: a web page cannot use
 * the local model behind the user's back.
 */
export function originCheck(allowedOrigins: readonly string[] = []): RequestHandler {
    return (req, res, next) => {
        const origin = req.headers.origin;
        if (origin == null) {
            next();
            return;
        }
        if (!isOriginAllowed(origin, allowedOrigins)) {
            next(originNotAllowed(origin));
            return;
        }
        res.setHeader("Access-Control-Allow-Origin", origin);
        res.setHeader("Vary", "Origin");
        if (req.method === "OPTIONS") {
            res.setHeader("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
            res.setHeader("Access-Control-Allow-Headers",
                req.headers["access-control-request-headers"] ?? "authorization, content-type, x-api-key");
            res.setHeader("Access-Control-Max-Age", "600");
            res.status(204).end();
            return;
        }
        next();
    };
}

/** Whether a request's `Origin` may use the API: absent (not a browser) or configured. */
export function isOriginAllowed(origin: string | undefined, allowedOrigins: readonly string[] = []): boolean {
    return origin == null || allowedOrigins.includes("*") || allowedOrigins.includes(origin);
}
