/**
 * The parsed `data:` payloads of a server-sent event stream, as they arrive (`[DONE]`, Chat Completions' end marker,
 * left out). The benches that time streams against another server read both sides through this, so both pay the
 * same parsing.
 */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, {stream: true});
        let end;
        while ((end = buffer.indexOf("\n")) >= 0) {
            const line = buffer.slice(0, end).trim();
            buffer = buffer.slice(end + 1);
            if (line.startsWith("data: ") && line !== "data: [DONE]")
                yield JSON.parse(line.slice(6));
        }
    }
}
