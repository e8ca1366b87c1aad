import type {RequestHandler} from "express";

export type RequestLogEntry = {method: string, path: string, status: number, ms: number, tokens?: {input: number, output: number}};

declare module "express-serve-static-core" {
    interface Locals {
        /** Set by routes that generated, for the request log and metrics. */
        usage?: {input: number, output: number};
    }
}

/** `POST /v1/responses 200 in=12 out=40 153ms`: what a request log line says, and nothing from the body. */
export function formatRequestLine(entry: RequestLogEntry): string {
    const tokens = entry.tokens == null ? "" : ` in=${entry.tokens.input} out=${entry.tokens.output}`;
    return `${entry.method} ${entry.path} ${entry.status}${tokens} ${entry.ms}ms`;
}

/** One line per request: method, path, status, tokens, time. Never bodies, prompts or keys. */
export function requestLog(onEntry: (entry: RequestLogEntry) => void): RequestHandler {
    return (req, res, next) => {
        const started = performance.now();
        res.on("finish", () => onEntry({
            method: req.method,
            // The full path: routers mounted under /v1 see their own tail in req.path.
            path: req.originalUrl.split("?")[0]!,
            status: res.statusCode,
            ms: Math.round(performance.now() - started),
            tokens: res.locals.usage
        }));
        next();
    };
}
