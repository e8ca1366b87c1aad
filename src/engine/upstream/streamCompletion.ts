import type {IncomingMessage} from "node:http";
import {EngineError} from "../EngineError.js";
import type {GenerationEvent, GenerationResult} from "../types.js";
import type {ChatCompletionsBody} from "./upstreamChatRequest.js";
import {ChunkAccumulator, type ChatCompletionChunk} from "./ChunkAccumulator.js";
import {maxErrorBodyBytes, PostFailure, postRequest, readText} from "./postRequest.js";
import {SseDataParser, type SseDataEvent} from "./sseData.js";
import type {Upstream} from "./Upstream.js";
import {causeText, statusError, UpstreamConnectError} from "./upstreamErrors.js";

export type StreamOptions = {
    /** The caller's cancel (client disconnect, `cancel`, a background deadline): aborts the upstream request at once. */
    signal?: AbortSignal,
    /** Silence allowed before the response headers and between chunks. */
    timeoutMs: number,
    maxToolCalls?: number,
    onEvent?: (event: GenerationEvent) => void,
    /** Output deltas as they come (for live activity). */
    onDeltas?: (count: number) => void
};

/** What a finished stream gives: the result, and whether the upstream reported usage itself. */
export type StreamOutcome = {result: GenerationResult, upstreamUsage: boolean};

/**
 * One streaming Chat Completions request to one upstream, its deltas forwarded as engine events as they
 * arrive. Throws `UpstreamConnectError` when the request never reached the upstream (the caller may try
 * another), an `EngineError` for everything else: `aborted`, `upstream_timeout`, the upstream's error status,
 * a stream cut mid-response (`upstream_unavailable`) or one that is not Chat Completions (`upstream_error`).
 */
export async function streamCompletion(upstream: Upstream, body: ChatCompletionsBody, options: StreamOptions): Promise<StreamOutcome> {
    const started = performance.now();
    if (options.signal?.aborted)
        throw new EngineError("aborted", "The generation was aborted.");
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    options.signal?.addEventListener("abort", onAbort, {once: true});
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    // One timer that re-arms itself for what is left of the silence window: `arm` on every chunk (hundreds a
    // second on a fast upstream) only records the time.
    let lastActivity = performance.now();
    const check = () => {
        const left = options.timeoutMs - (performance.now() - lastActivity);
        if (left > 0) {
            timer = setTimeout(check, left);
            return;
        }
        timedOut = true;
        controller.abort();
    };
    const arm = () => {
        lastActivity = performance.now();
        timer ??= setTimeout(check, options.timeoutMs);
    };
    const failure = (error: unknown, phase: string): Error => {
        if (options.signal?.aborted)
            return new EngineError("aborted", "The generation was aborted.");
        if (timedOut)
            return new EngineError("upstream_timeout",
                `The upstream ${upstream.label} sent nothing for ${Math.round(options.timeoutMs / 1000)} s ${phase}.`);
        if (error instanceof EngineError)
            return error;
        return new EngineError("upstream_unavailable", `The upstream ${upstream.label} closed the stream ${phase}: ${causeText(error)}`);
    };

    let response: IncomingMessage | undefined;
    /** The stream ended as it should ([DONE], or a call past `max_tool_calls`): its connection may be kept. */
    let ended = false;
    arm();
    try {
        const requestBody = JSON.stringify(body);
        for (let attempt = 0; response == null; attempt++) {
            try {
                response = await postRequest(upstream.url("/v1/chat/completions"), upstream.agent, upstream.headers(true), requestBody,
                    controller.signal);
            } catch (error) {
                if (options.signal?.aborted || timedOut)
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

        const accumulator = new ChunkAccumulator((event) => options.onEvent?.(event), {maxToolCalls: options.maxToolCalls});
        const parser = new SseDataParser(upstream.label);
        /** Handles one event; true once the stream is over (`[DONE]`, or a call past `max_tool_calls`). */
        const handle = (event: SseDataEvent): boolean => {
            if ("error" in event)
                throw new EngineError("upstream_error",
                    `The upstream ${upstream.label} reported an error mid-stream: ${event.error.slice(0, 300)}`);
            if (event.data === "[DONE]")
                return true;
            const before = accumulator.deltaCount;
            accumulator.push(parseChunk(upstream.label, event.data));
            options.onDeltas?.(accumulator.deltaCount - before);
            if (!accumulator.limitReached)
                return false;
            // A call past `max_tool_calls`: the generation ends with the calls before it.
            controller.abort();
            return true;
        };
        let done = false;
        try {
            // Each read is parsed at once, its events handled in order: no promise per event. Leaving the loop does
            // not destroy the body: after [DONE] its end is read so that the connection goes back to the pool.
            reading: for await (const chunk of response.iterator({destroyOnReturn: false})) {
                arm();
                for (const event of parser.push(chunk as Buffer))
                    if (handle(event)) {
                        done = true;
                        break reading;
                    }
            }
            if (!done)
                done = parser.end().some(handle);
        } catch (error) {
            throw failure(error, "mid-response");
        }
        if (options.signal?.aborted)
            throw new EngineError("aborted", "The generation was aborted.");
        if (!done)
            throw new EngineError("upstream_error",
                `The upstream ${upstream.label} ended its stream without the final [DONE]: the answer may be cut.`);
        ended = true;
        return {result: accumulator.finish(false, started), upstreamUsage: accumulator.hasUsage};
    } finally {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        if (response != null)
            if (ended)
                dropRest(response);
            else
                response.destroy();
    }
}

/**
 * Reads and drops what follows `[DONE]` (the chunked body's end, usually already here) so that the keep-alive
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

function parseChunk(label: string, data: string): ChatCompletionChunk {
    let chunk: unknown;
    try {
        chunk = JSON.parse(data);
    } catch {
        throw new EngineError("upstream_error", `The upstream ${label} sent a stream chunk that is not JSON: ${data.slice(0, 200)}`);
    }
    if (chunk == null || typeof chunk !== "object" || Array.isArray(chunk))
        throw new EngineError("upstream_error",
            `The upstream ${label} sent a stream chunk that is not a Chat Completions chunk: ${data.slice(0, 200)}`);
    const choices = (chunk as {choices?: unknown}).choices;
    if (choices != null && !Array.isArray(choices))
        throw new EngineError("upstream_error", `The upstream ${label} sent a chunk whose 'choices' is not a list: ${data.slice(0, 200)}`);
    return chunk as ChatCompletionChunk;
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
