import {EngineError} from "../EngineError.js";
import type {GenerationEvent, GenerationResult} from "../types.js";
import type {ChatCompletionsBody} from "./upstreamChatRequest.js";
import {ChunkAccumulator, type ChatCompletionChunk} from "./ChunkAccumulator.js";
import {streamSse, type SseStreamOptions} from "./streamSse.js";
import type {Upstream} from "./Upstream.js";

export type StreamOptions = SseStreamOptions & {
    maxToolCalls?: number,
    onEvent?: (event: GenerationEvent) => void,
    /** Output deltas as they come (for live activity). */
    onDeltas?: (count: number) => void
};

/** What a finished stream gives: the result, and whether the upstream reported usage itself. */
export type StreamOutcome = {result: GenerationResult, upstreamUsage: boolean};

/**
 * One streaming Chat Completions request to one upstream (`streamSse`), its deltas forwarded as engine events as they
 * arrive. Throws as `streamSse` does, and `upstream_error` for a stream that is not Chat Completions.
 */
export async function streamCompletion(upstream: Upstream, body: ChatCompletionsBody, options: StreamOptions): Promise<StreamOutcome> {
    const started = performance.now();
    const accumulator = new ChunkAccumulator((event) => options.onEvent?.(event), {maxToolCalls: options.maxToolCalls});
    await streamSse(upstream, "/v1/chat/completions", body, options, (data) => {
        if (data === "[DONE]")
            return "done";
        const before = accumulator.deltaCount;
        accumulator.push(parseChunk(upstream.label, data));
        options.onDeltas?.(accumulator.deltaCount - before);
        // A call past `max_tool_calls`: the generation ends with the calls before it.
        return accumulator.limitReached ? "cut" : false;
    });
    return {result: accumulator.finish(false, started), upstreamUsage: accumulator.hasUsage};
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
