import {EngineError} from "../EngineError.js";

/** One Server-Sent Event's payload: its `data` (lines joined with "\n"), or its `error` field. */
export type SseDataEvent = {data: string} | {error: string};

/**
 * Characters one event may gather before it ends: a line not yet ended and the data lines of an event not yet
 * dispatched, together. A Chat Completions chunk is a few hundred bytes (a whole-answer chunk some megabytes), so
 * past this the upstream is not sending SSE as it should, and holding on would fill memory.
 */
export const maxSseEventChars = 16 * 1024 * 1024;

/**
 * The `data` payloads of a Server-Sent Events body, event by event, as bytes arrive: `push` each read and get
 * the events it completed, synchronously (a relay calls it once per upstream read, so there is no promise per
 * event). Comment lines (`: ping`) and other fields are skipped; multi-line data is joined with "\n" as the SSE
 * spec says; CRLF, CR and LF all end lines. An `error:` field (llama-server sends one for some failures) is
 * given as `{error: payload}`. An event that gathers more than `maxChars` (`maxSseEventChars`) before it ends throws
 * an `upstream_error` naming `source`.
 */
export class SseDataParser {
    private readonly decoder = new TextDecoder();
    /** The line not yet ended, in the pieces it came in: joined once its end arrives, not copied on every read. */
    private pending: string[] = [];
    private pendingChars = 0;
    private data: string[] = [];
    private dataChars = 0;
    private error: string | null = null;

    public constructor(private readonly source = "upstream", private readonly maxChars = maxSseEventChars) {}

    public push(chunk: Uint8Array): SseDataEvent[] {
        const text = this.decoder.decode(chunk, {stream: true});
        // A read inside a long line: kept as a piece (a CR ending the line before it may still await its LF).
        if (lineEnd(text, 0) < 0 && !this.endsWithCr()) {
            this.hold(text);
            return [];
        }
        const events: SseDataEvent[] = [];
        const buffer = this.pending.length === 0 ? text : this.pending.join("") + text;
        this.pending = [];
        this.pendingChars = 0;
        let start = 0;
        for (;;) {
            const newline = lineEnd(buffer, start);
            if (newline < 0 || (newline === buffer.length - 1 && buffer.charCodeAt(newline) === 13))
                break; // no whole line yet, or a CR at the end of a read that may be the first half of a CRLF
            this.line(buffer.slice(start, newline), events);
            start = newline + (buffer.charCodeAt(newline) === 13 && buffer.charCodeAt(newline + 1) === 10 ? 2 : 1);
        }
        this.hold(start === 0 ? buffer : buffer.slice(start));
        return events;
    }

    /** The body ended: a last event without its blank line still counts. */
    public end(): SseDataEvent[] {
        const events: SseDataEvent[] = [];
        const rest = this.pending.join("") + this.decoder.decode();
        this.pending = [];
        this.pendingChars = 0;
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
        if (field === "data") {
            this.data.push(value);
            this.dataChars += value.length + 1;
        } else if (field === "error") {
            this.error = value;
        }
    }

    private dispatch(events: SseDataEvent[]): void {
        if (this.error != null)
            events.push({error: this.error});
        else if (this.data.length > 0)
            events.push({data: this.data.length === 1 ? this.data[0]! : this.data.join("\n")});
        this.data = [];
        this.dataChars = 0;
        this.error = null;
    }

    /** Keeps the start of a line not yet ended; an event past the bound fails the stream rather than filling memory. */
    private hold(text: string): void {
        if (text !== "") {
            this.pending.push(text);
            this.pendingChars += text.length;
        }
        if (this.pendingChars + this.dataChars > this.maxChars)
            throw new EngineError("upstream_error", `The upstream ${this.source} sent a Server-Sent Event of more than `
                + `${this.maxChars} characters without ending it (no line end, or no blank line after its data): the stream was dropped.`);
    }

    private endsWithCr(): boolean {
        const last = this.pending.at(-1);
        return last != null && last.charCodeAt(last.length - 1) === 13;
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
