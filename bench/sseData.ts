import {SseDataParser, type SseDataEvent} from "../src/engine/upstream/sseData.js";

/**
 * The parsed `data:` payloads of a server-sent event stream, as they arrive (`[DONE]`, Chat Completions' end marker,
 * and `error:` fields left out), read with the upstream engine's own SSE parser. The benches that time streams
 * against another server read both sides through this, so both pay the same parsing.
 */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
    const parser = new SseDataParser();
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>)
        yield* payloads(parser.push(chunk));
    yield* payloads(parser.end());
}

function* payloads(events: readonly SseDataEvent[]): Generator<unknown> {
    for (const event of events)
        if ("data" in event && event.data !== "[DONE]")
            yield JSON.parse(event.data);
}
