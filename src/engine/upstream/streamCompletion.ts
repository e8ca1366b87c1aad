import {EngineError} from "../errors.js";
import type {GenerationEvent, GenerationResult} from "../types.js";
import type {ChatCompletionsBody} from "./chatRequest.js";
import {ChunkAccumulator, type ChatCompletionChunk} from "./ChunkAccumulator.js";
import {sseData} from "./sseData.js";
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
            return new EngineError("upstream_timeout", `The upstream ${upstream.label} sent nothing for ${Math.round(options.timeoutMs / 1000)} s ${phase}.`);
        if (error instanceof EngineError)
            return error;
        return new EngineError("upstream_unavailable", `The upstream ${upstream.label} closed the stream ${phase}: ${causeText(error)}`);
    };

    arm();
    try {
        let response: Response | undefined;
        for (let attempt = 0; response == null; attempt++) {
            try {
                response = await fetch(upstream.url("/v1/chat/completions"), {
                    method: "POST", headers: upstream.headers(true), body: JSON.stringify(body), signal: controller.signal
                });
            } catch (error) {
                if (options.signal?.aborted || timedOut)
                    throw failure(error, "before answering");
                // A pooled keep-alive connection the upstream had just closed: the request never reached it. Once more
                // on a new connection, before calling the upstream unreachable (and trying another, or marking it down).
                if (attempt === 0 && isStaleConnection(error))
                    continue;
                throw new UpstreamConnectError(upstream.label, error);
            }
        }
        if (!response.ok) {
            const text = await response.text().catch(() => "");
            throw statusError(upstream.label, response.status, text, response.headers.get("retry-after"));
        }
        if (response.body == null)
            throw new EngineError("upstream_error", `The upstream ${upstream.label} answered without a body.`);

        const accumulator = new ChunkAccumulator((event) => options.onEvent?.(event), {maxToolCalls: options.maxToolCalls});
        let done = false;
        try {
            for await (const event of sseData(response.body as unknown as AsyncIterable<Uint8Array>)) {
                arm();
                if ("error" in event)
                    throw new EngineError("upstream_error", `The upstream ${upstream.label} reported an error mid-stream: ${event.error.slice(0, 300)}`);
                if (event.data === "[DONE]") {
                    done = true;
                    break;
                }
                const before = accumulator.deltaCount;
                accumulator.push(parseChunk(upstream.label, event.data));
                options.onDeltas?.(accumulator.deltaCount - before);
                if (accumulator.limitReached) {
                    // A call past `max_tool_calls`: the generation ends with the calls before it.
                    done = true;
                    controller.abort();
                    break;
                }
            }
        } catch (error) {
            throw failure(error, "mid-response");
        }
        if (options.signal?.aborted)
            throw new EngineError("aborted", "The generation was aborted.");
        if (!done)
            throw new EngineError("upstream_error", `The upstream ${upstream.label} ended its stream without the final [DONE]: the answer may be cut.`);
        return {result: accumulator.finish(false, started), upstreamUsage: accumulator.hasUsage};
    } finally {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
    }
}

function parseChunk(label: string, data: string): ChatCompletionChunk {
    let chunk: unknown;
    try {
        chunk = JSON.parse(data);
    } catch {
        throw new EngineError("upstream_error", `The upstream ${label} sent a stream chunk that is not JSON: ${data.slice(0, 200)}`);
    }
    if (chunk == null || typeof chunk !== "object" || Array.isArray(chunk))
        throw new EngineError("upstream_error", `The upstream ${label} sent a stream chunk that is not a Chat Completions chunk: ${data.slice(0, 200)}`);
    const choices = (chunk as {choices?: unknown}).choices;
    if (choices != null && !Array.isArray(choices))
        throw new EngineError("upstream_error", `The upstream ${label} sent a chunk whose 'choices' is not a list: ${data.slice(0, 200)}`);
    return chunk as ChatCompletionChunk;
}

/** The socket closed under a request sent on a reused connection (undici: `other side closed`, or a reset). */
function isStaleConnection(error: unknown): boolean {
    const code = (error as {cause?: {code?: string}} | undefined)?.cause?.code;
    return code === "UND_ERR_SOCKET" || code === "ECONNRESET";
}
