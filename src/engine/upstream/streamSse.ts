import type {IncomingMessage} from "node:http";
import {EngineError} from "../EngineError.js";
import {maxErrorBodyBytes, PostFailure, postRequest, readText} from "./postRequest.js";
import {SseDataParser, type SseDataEvent} from "./sseData.js";
import type {Upstream} from "./Upstream.js";
import {causeText, statusError, UpstreamConnectError} from "./upstreamErrors.js";

export type SseStreamOptions = {
    /** The caller's cancel (client disconnect, `cancel`, a background deadline): aborts the upstream request at once. */
    signal?: AbortSignal,
    /** Silence allowed before the response headers and between chunks. */
    timeoutMs: number
};

/**
 * What the handler says of each event: `false`, go on; `"done"`, the stream is over (its end is read so that the
 * connection goes back to the pool); `"cut"`, the caller has what it wants (a call past `max_tool_calls`): the
 * request is aborted.
 */
export type SseVerdict = false | "done" | "cut";

/**
 * One streaming POST of `body` (JSON) to `path` on one upstream, each Server-Sent Event's data handed to `handle` as it
 * arrives, which returns a verdict once the stream is over; an event's `error:` field (llama-server sends one for some
 * failures) ends it with an `upstream_error`. Throws `UpstreamConnectError` when the request never reached
 * the upstream (the caller may try another), an `EngineError` for everything else: `aborted`, `upstream_timeout`, the
 * upstream's error status, a stream cut mid-response (`upstream_unavailable`) or one that ended without its end
 * (`upstream_error`, `endMissing` says what the end is). Used by Chat Completions (`streamCompletion`) and by the raw
 * completions and infill requests (`upstreamRaw.ts`).
 */
export async function streamSse(upstream: Upstream, path: string, body: unknown, options: SseStreamOptions,
    handle: (data: string) => SseVerdict, endMissing = "the final [DONE]"): Promise<void> {
    if (options.signal?.aborted)
        throw new EngineError("aborted", "The generation was aborted.");
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    options.signal?.addEventListener("abort", onAbort, {once: true});
    const silence = new SilenceTimer(options.timeoutMs, () => controller.abort());
    const failure = (error: unknown, phase: string): Error => {
        if (options.signal?.aborted)
            return new EngineError("aborted", "The generation was aborted.");
        if (silence.timedOut)
            return new EngineError("upstream_timeout",
                `The upstream ${upstream.label} sent nothing for ${Math.round(options.timeoutMs / 1000)} s ${phase}.`);
        if (error instanceof EngineError)
            return error;
        return new EngineError("upstream_unavailable", `The upstream ${upstream.label} closed the stream ${phase}: ${causeText(error)}`);
    };

    let response: IncomingMessage | undefined;
    /** The stream ended as it should: its connection may be kept. */
    let ended = false;
    silence.arm();
    try {
        const requestBody = JSON.stringify(body);
        for (let attempt = 0; response == null; attempt++) {
            try {
                response = await postRequest(upstream.url(path), upstream.agent, upstream.headers(true), requestBody, controller.signal);
            } catch (error) {
                if (options.signal?.aborted || silence.timedOut)
                    throw failure(error, "before answering");
                // A pooled keep-alive connection the upstream had just closed: the request never reached it. Once more
                // on a new connection, before calling the upstream unreachable (and trying another, or marking it down).
                if (attempt === 0 && isStaleConnection(error))
                    continue;
                throw new UpstreamConnectError(upstream.label, error instanceof PostFailure ? error.cause : error);
            }
        }
        const status = response.statusCode ?? 0;
        if (status < 200 || status > 299) {
            const {text, truncated} = await readText(response);
            const retryAfter = headerValue(response.headers["retry-after"]);
            throw statusError(upstream.label, status, text, retryAfter, truncated ? maxErrorBodyBytes : undefined);
        }
        const parser = new SseDataParser(upstream.label);
        const over = (event: SseDataEvent): boolean => {
            if ("error" in event)
                throw new EngineError("upstream_error",
                    `The upstream ${upstream.label} reported an error mid-stream: ${event.error.slice(0, 300)}`);
            const verdict = handle(event.data);
            if (verdict === "cut")
                controller.abort();
            return verdict !== false;
        };
        let done = false;
        try {
            // Each read is parsed at once, its events handled in order: no promise per event. Leaving the loop does
            // not destroy the body: after the end its rest is read so that the connection goes back to the pool.
            reading: for await (const chunk of response.iterator({destroyOnReturn: false})) {
                silence.arm();
                for (const event of parser.push(chunk as Buffer))
                    if (over(event)) {
                        done = true;
                        break reading;
                    }
            }
            if (!done)
                done = parser.end().some(over);
        } catch (error) {
            throw failure(error, "mid-response");
        }
        if (options.signal?.aborted)
            throw new EngineError("aborted", "The generation was aborted.");
        if (!done)
            throw new EngineError("upstream_error",
                `The upstream ${upstream.label} ended its stream without ${endMissing}: the answer may be cut.`);
        ended = true;
    } finally {
        silence.stop();
        options.signal?.removeEventListener("abort", onAbort);
        if (response != null)
            if (ended)
                dropRest(response);
            else
                response.destroy();
    }
}

/**
 * One timer for a stream's silence window that re-arms itself for what is left of it: `arm` on every chunk (hundreds
 * a second on a fast upstream) only records the time.
 */
class SilenceTimer {
    public timedOut = false;
    private timer: NodeJS.Timeout | undefined;
    private lastActivity = performance.now();

    public constructor(private readonly timeoutMs: number, private readonly onTimeout: () => void) {}

    public arm(): void {
        this.lastActivity = performance.now();
        this.timer ??= setTimeout(() => this.check(), this.timeoutMs);
    }

    public stop(): void {
        clearTimeout(this.timer);
    }

    private check(): void {
        const left = this.timeoutMs - (performance.now() - this.lastActivity);
        if (left > 0) {
            this.timer = setTimeout(() => this.check(), left);
            return;
        }
        this.timedOut = true;
        this.onTimeout();
    }
}

/**
 * Reads and drops what follows the stream's end (the chunked body's end, usually already here) so that the keep-alive
 * connection returns to the pool for the next request; a body that does not end within a second is closed.
 */
function dropRest(response: IncomingMessage): void {
    if (response.readableEnded)
        return;
    const timer = setTimeout(() => response.destroy(), 1000);
    timer.unref();
    response.once("close", () => clearTimeout(timer));
    response.resume();
}

/** The socket closed under a request sent on a reused keep-alive connection (a reset, or `socket hang up`). */
function isStaleConnection(error: unknown): boolean {
    if (!(error instanceof PostFailure) || !error.reusedSocket)
        return false;
    const code = (error.cause as {code?: string} | undefined)?.code;
    return code === "ECONNRESET" || code === "EPIPE";
}

function headerValue(value: string | string[] | undefined): string | null {
    return Array.isArray(value) ? value[0] ?? null : value ?? null;
}
