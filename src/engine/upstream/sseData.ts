/** One Server-Sent Event's payload: its `data` (lines joined with "\n"), or its `error` field. */
export type SseDataEvent = {data: string} | {error: string};

/**
 * The `data` payloads of a Server-Sent Events body, event by event, as bytes arrive: `push` each read and get
 * the events it completed, synchronously (a relay calls it once per upstream read, so there is no promise per
 * event). Comment lines (`: ping`) and other fields are skipped; multi-line data is joined with "\n" as the SSE
 * spec says; CRLF, CR and LF all end lines. An `error:` field (llama-server sends one for some failures) is
 * given as `{error: payload}`.
 */
export class SseDataParser {
    private readonly decoder = new TextDecoder();
    private buffer = "";
    private data: string[] = [];
    private error: string | null = null;

    public push(chunk: Uint8Array): SseDataEvent[] {
        const events: SseDataEvent[] = [];
        const buffer = this.buffer + this.decoder.decode(chunk, {stream: true});
        let start = 0;
        for (;;) {
            const newline = lineEnd(buffer, start);
            if (newline < 0 || (newline === buffer.length - 1 && buffer.charCodeAt(newline) === 13))
                break; // no whole line yet, or a CR at the end of a read that may be the first half of a CRLF
            this.line(buffer.slice(start, newline), events);
            start = newline + (buffer.charCodeAt(newline) === 13 && buffer.charCodeAt(newline + 1) === 10 ? 2 : 1);
        }
        this.buffer = start === 0 ? buffer : buffer.slice(start);
        return events;
    }

    /** The body ended: a last event without its blank line still counts. */
    public end(): SseDataEvent[] {
        const events: SseDataEvent[] = [];
        const rest = this.buffer + this.decoder.decode();
        this.buffer = "";
        if (rest.startsWith("data:"))
            this.data.push(rest.slice(5).replace(/^ /, ""));
        this.dispatch(events);
        return events;
    }

    private line(line: string, events: SseDataEvent[]): void {
        if (line === "") {
            this.dispatch(events);
            return;
        }
        if (line.charCodeAt(0) === 58) // ":" a comment
            return;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
        if (field === "data")
            this.data.push(value);
        else if (field === "error")
            this.error = value;
    }

    private dispatch(events: SseDataEvent[]): void {
        if (this.error != null)
            events.push({error: this.error});
        else if (this.data.length > 0)
            events.push({data: this.data.length === 1 ? this.data[0]! : this.data.join("\n")});
        this.data = [];
        this.error = null;
    }
}

/** The index of the next CR or LF at or after `from`, or -1. */
function lineEnd(text: string, from: number): number {
    for (let index = from; index < text.length; index++) {
        const code = text.charCodeAt(index);
        if (code === 10 || code === 13)
            return index;
    }
    return -1;
}
