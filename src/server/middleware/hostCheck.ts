import type {RequestHandler} from "express";
import {ApiError} from "../../responses/errors.js";

const loopbackNames = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Whether a Host header names this machine's loopback (any port): anything else may be DNS rebinding. */
export function isLoopbackHost(host: string | undefined, extraHosts: readonly string[] = []): boolean {
    if (host == null || host === "")
        return false;
    const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.replace(/:\d+$/, "");
    const lower = name.toLowerCase();
    return loopbackNames.has(lower) || /^127(\.\d{1,3}){3}$/.test(lower) || lower.endsWith(".localhost") || extraHosts.includes(lower);
}

/** Refuses requests whose Host header is not a loopback name (403), defeating DNS rebinding. */
export function hostCheck(extraHosts: readonly string[] = []): RequestHandler {
    return (req, _res, next) => {
        if (isLoopbackHost(req.headers.host, extraHosts))
            next();
        else
            next(invalidHost());
    };
}

export function invalidHost(): ApiError {
    return new ApiError(403, "The Host header must name a loopback address (localhost, 127.0.0.1 or [::1]).", {code: "invalid_host"});
}
