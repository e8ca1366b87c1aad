import {EngineError} from "../EngineError.js";

/** A request that never reached the upstream (refused, reset, DNS): safe to send to another upstream. */
export class UpstreamConnectError extends Error {
    public constructor(public readonly upstream: string, cause: unknown) {
        super(`The upstream ${upstream} cannot be reached: ${causeText(cause)}`);
        this.name = "UpstreamConnectError";
    }
}

/**
 * An upstream's non-2xx answer as an engine error: 429 and 503 are passed on (with `Retry-After`), a 400
 * about the context is `context_overflow`, any other 4xx is the upstream refusing the request (400), and
 * everything else (401/403 from a wrong upstream key, 404 for an unknown model, 5xx) is a bad gateway.
 * `truncatedAt`: the body went on past that many bytes, unread (`readText`), which the message says.
 */
export function statusError(
    upstream: string, status: number, bodyText: string, retryAfter: string | null, truncatedAt?: number
): EngineError {
    const detail = errorMessage(bodyText);
    const cut = truncatedAt == null ? "" : ` (its error body was longer than ${truncatedAt} bytes: the rest was not read)`;
    const message = `The upstream ${upstream} answered ${status}${detail === "" ? "" : `: ${detail}`}${cut}`;
    if (status === 429 || status === 503)
        return new EngineError("upstream_busy", message, {status, retryAfterSeconds: parseRetryAfter(retryAfter)});
    if (status === 400 && /context|too long|exceed|n_ctx|maximum.*tokens/i.test(detail))
        return new EngineError("context_overflow", message, {status});
    if (status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 404)
        return new EngineError("upstream_rejected", message, {status});
    return new EngineError("upstream_error", message, {status});
}

/** The `message` of an OpenAI-shaped (or llama-server/Ollama-shaped) error body, else its first 300 characters. */
export function errorMessage(bodyText: string): string {
    try {
        const body = JSON.parse(bodyText) as {error?: unknown, message?: unknown, detail?: unknown};
        const error = body.error;
        if (typeof error === "string")
            return error;
        if (error != null && typeof error === "object" && typeof (error as {message?: unknown}).message === "string")
            return (error as {message: string}).message;
        if (typeof body.message === "string")
            return body.message;
        if (typeof body.detail === "string")
            return body.detail;
    } catch {
        // not JSON: the text itself
    }
    return bodyText.trim().slice(0, 300);
}

/** `Retry-After` as seconds: a number of seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null): number | undefined {
    if (value == null || value.trim() === "")
        return undefined;
    const seconds = Number(value);
    if (Number.isFinite(seconds) && seconds >= 0)
        return Math.ceil(seconds);
    const date = Date.parse(value);
    return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

export function causeText(error: unknown): string {
    if (error instanceof Error) {
        const cause = (error as {cause?: unknown}).cause;
        const code = cause != null && typeof cause === "object" && typeof (cause as {code?: unknown}).code === "string"
            ? (cause as {code: string}).code : null;
        const causeMessage = cause instanceof Error ? cause.message : null;
        return [error.message, code, causeMessage].filter((part) => part != null && part !== "").join(": ");
    }
    return String(error);
}
