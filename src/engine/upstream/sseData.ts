/**
 * The `data` payloads of a Server-Sent Events body, event by event, as bytes arrive. Comment lines (`: ping`)
 * and other fields are skipped; multi-line data is joined with "\n" as the SSE spec says; CRLF and LF both end lines.
 * An `error:` field (llama-server sends one for some failures) is yielded as `{error: payload}`.
 */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<{data: string} | {error: string}> {
    const decoder = new TextDecoder();
    let buffer = "";
    let data: string[] = [];
    let error: string | null = null;
    const dispatch = function* () {
        if (error != null)
            yield {error};
        else if (data.length > 0)
            yield {data: data.join("\n")};
        data = [];
        error = null;
    };
    for await (const chunk of body) {
        buffer += decoder.decode(chunk, {stream: true});
        let newline: number;
        while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
            if (newline === buffer.length - 1 && buffer.endsWith("\r"))
                break; // a CR at the end of a read may be the first half of a CRLF
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
            if (line === "") {
                yield* dispatch();
                continue;
            }
            if (line.startsWith(":"))
                continue;
            const colon = line.indexOf(":");
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
            if (field === "data")
                data.push(value);
            else if (field === "error")
                error = value;
        }
    }
    buffer += decoder.decode();
    if (buffer !== "" && buffer.startsWith("data:"))
        data.push(buffer.slice(5).replace(/^ /, ""));
    yield* dispatch();
}
