import {jsonStringPart, skipSpace} from "./jsonText.js";
import {CallsSoFar, type BlockStream, type CallSoFar, type TextCallTools} from "./textCallTypes.js";

const quote = "<|\"|>";

type Phase = "head" | "key" | "value" | "string" | "next" | "stopped";

/**
 * Reads one Gemma 4 call block (`call:NAME{key:<|"|>text<|"|>,…}`) as its text grows: the name once its `{` comes,
 * then each key, and each `<|"|>`-quoted string's text as it is written (a patch, a file), escaped as JSON. A value of
 * another kind (a number, a list, an object) or the doubled-brace JSON form stops the stream there, and the block's
 * reading at its end writes the rest (TextCallReader). The same guarantee as TaggedCallStream: what is said is the
 * start of the JSON.stringify'd arguments the block reads as.
 */
export class Gemma4CallStream implements BlockStream {
    private readonly calls = new CallsSoFar();
    private text = "";
    private phase: Phase = "head";
    private at = 0;
    private readonly keys = new Set<string>();
    private string = {start: 0, written: 0};

    public constructor(private readonly tools: TextCallTools) {}

    public read(more: string): readonly CallSoFar[] {
        if (this.phase === "stopped")
            return this.calls.take();
        const text = this.text += more;
        for (let progressed = true; progressed;)
            progressed = this.step(text);
        // As TaggedCallStream: the text before what is still to read is let go once it is most of it.
        const needed = this.phase === "string" ? Math.min(this.at, this.string.start + this.string.written) : this.at;
        if (needed >= 4096 && needed >= text.length / 2) {
            this.text = text.slice(needed);
            this.at -= needed;
            this.string.start -= needed;
        }
        return this.calls.take();
    }

    private step(text: string): boolean {
        const at = this.phase === "string" ? this.at : skipSpace(text, this.at);
        const rest = text.slice(at, at + 1024);
        switch (this.phase) {
            case "head": {
                const head = /^call:([^{\s]+)\s*\{(?=[^{])/.exec(rest);
                if (head == null)
                    return ("call:".startsWith(rest) || /^call:[^{\s]*\s*\{?$/.test(rest)) && rest.length < 1024 ? false : this.stop();
                if (!this.tools.has(head[1]!))
                    return this.stop();
                this.calls.start(head[1]!);
                return this.goOn(at + head[0].length, "key");
            }
            case "key": {
                const key = /^([^:}]+):/.exec(rest)?.[1]!.trim().replace(/^"(.*)"$/, "$1");
                if (key == null)
                    return /^[^:}]*$/.test(rest) && rest.length < 1024 ? false : this.stop();
                // As TaggedCallStream: keys JSON.stringify would reorder or drop, or a repeated one, stop the stream.
                if (this.keys.has(key) || /^(0|[1-9]\d*)$/.test(key) || key === "__proto__")
                    return this.stop();
                this.calls.write(`${this.keys.size === 0 ? "{" : ","}${JSON.stringify(key)}:`);
                this.keys.add(key);
                return this.goOn(at + rest.indexOf(":") + 1, "value");
            }
            case "value":
                if (rest.startsWith(quote)) {
                    this.string = {start: at + quote.length, written: 0};
                    this.calls.write("\"");
                    return this.goOn(at + quote.length, "string");
                }
                return quote.startsWith(rest) ? false : this.stop();
            case "string":
                return this.readString(text);
            case "next":
                if (rest.startsWith(","))
                    return this.goOn(at + 1, "key");
                // `}` ends the arguments: the block's reading writes the rest.
                return rest === "" ? false : this.stop();
            default:
                return false;
        }
    }

    /** A quoted string's text up to its closing quote, or up to where one may be starting. */
    private readString(text: string): boolean {
        const {start, written} = this.string;
        const close = text.indexOf(quote, Math.max(start + written, this.at));
        let end = close < 0 ? text.length : close;
        if (close < 0)
            for (let length = Math.min(quote.length - 1, end - start); length > 0; length--)
                if (quote.startsWith(text.slice(end - length))) {
                    end -= length;
                    break;
                }
        const part = jsonStringPart(text.slice(start + written, end), close >= 0);
        this.calls.write(part.json + (close >= 0 ? "\"" : ""));
        this.string.written += part.length;
        this.at = Math.max(start, end - quote.length);
        return close >= 0 && this.goOn(close + quote.length, "next");
    }

    private goOn(at: number, phase: Phase): true {
        this.at = at;
        this.phase = phase;
        return true;
    }

    private stop(): boolean {
        this.phase = "stopped";
        return false;
    }
}
