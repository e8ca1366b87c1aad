import type {TextCall, TextCallFormat, TextCallTools} from "./textCallFormats.js";

/**
 * Reads a freely generated answer for calls in a text format (textCallFormats.ts) as it streams: the answer's text is
 * passed on until the format's opener appears; text that could be the opener's start is held back until the next
 * chunk tells; from the opener on, everything is kept for `finish`, which reads the calls, or gives the kept text back
 * as answer text where it is not a complete call of an offered tool.
 */
export class TextCallReader {
    private held = "";
    private callText: string | undefined;

    public constructor(private readonly format: TextCallFormat, private readonly tools: TextCallTools,
        private readonly maxCalls = Number.POSITIVE_INFINITY) {}

    /** Whether a call has started: the answer's text ended where it did. */
    public get inCall(): boolean {
        return this.callText != null;
    }

    /** The part of `chunk` that is answer text for certain. */
    public push(chunk: string): string {
        if (this.callText != null) {
            this.callText += chunk;
            return "";
        }
        const text = this.held + chunk;
        const {opener} = this.format;
        const at = text.indexOf(opener);
        if (at >= 0) {
            this.callText = text.slice(at);
            this.held = "";
            return text.slice(0, at);
        }
        const keep = partialSuffixLength(text, opener);
        this.held = text.slice(text.length - keep);
        return text.slice(0, text.length - keep);
    }

    /** The calls, and the text still owed to the answer (held back, or a call that did not parse). */
    public finish(): {calls: TextCall[], text: string} {
        const held = this.held;
        this.held = "";
        if (this.callText == null)
            return {calls: [], text: held};
        const calls = this.format.parse(this.callText, this.tools);
        return calls == null ? {calls: [], text: this.callText} : {calls: calls.slice(0, this.maxCalls), text: ""};
    }
}

/** The length of the longest end of `text` that `opener` starts with. */
function partialSuffixLength(text: string, opener: string): number {
    for (let length = Math.min(opener.length - 1, text.length); length > 0; length--)
        if (opener.startsWith(text.slice(text.length - length)))
            return length;
    return 0;
}
