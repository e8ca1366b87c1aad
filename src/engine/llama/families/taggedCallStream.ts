import {maxCallNesting, nestsDeeperThan} from "./callNesting.js";
import {jsonStringPart, parseJson, skipSpace} from "./jsonText.js";
import {
    CallsSoFar, declaredTypes, valueKind, valueKindFrom, type BlockStream, type CallSoFar, type TextCallTools
} from "./textCallTypes.js";

/** A call's name found at the start of its text: where its arguments start; `wait` while the text may still become one. */
export type CallHead = {name: string, end: number} | "wait" | undefined;

/** The tags one per-argument format writes (textCallFormats.ts), as the block stream reads them. */
export type TaggedSyntax = {
    /** The name of the call that starts at `at` (after any whitespace). */
    head: (text: string, at: number) => CallHead,
    /** One argument's opening, sticky, the key in its first group: `<parameter=KEY>`. */
    pairOpen: RegExp,
    /** The fixed start of pairOpen: what, after a value's closing tag, says the next argument follows. */
    pairMarker: string,
    valueClose: string,
    /**
     * What ends a call's arguments: `last` where it ends them only as the block's last text (`</function>`, which a
     * value may hold), otherwise at its first appearance (`</invoke>`); none where the block's end does (GLM).
     */
    callEnd?: {marker: string, last: boolean},
    /** One newline either side of a value is the format's, not the value's. */
    trimNewline: boolean,
    /** Calls written as one JSON object instead (`{` after the name) are left to the block's end. */
    jsonBody: boolean
};

type Phase = "head" | "pairs" | "value" | "stopped";

/**
 * The value being read: where its text starts (after the format's newline), how far it was searched for its end and
 * for its first character other than space (which may tell its kind), how much was written.
 */
type OpenValue = {
    start: number | undefined, scan: number, blank: number, types: readonly unknown[], kind: "string" | "atEnd" | undefined,
    quoted: boolean, written: number
};

/**
 * Reads one call block of a per-argument format as its text grows, saying of each call only what no later text can
 * change if the block reads as a call: the name once its tag closes, then the arguments as the JSON object the block's
 * reading will produce (`{"key":"` and a string's escaped text as it comes; a value read as JSON once it ends). Text
 * that could still be a closing tag is waited on. Anything unexpected (a key JSON would reorder or repeat, a JSON body,
 * text the format does not allow) stops the stream there: the block's reading at its end decides (TextCallReader).
 * Each read resumes where the last one stopped, and the text before what is still to read is let go, so a block costs
 * its length whatever its chunks.
 */
export class TaggedCallStream implements BlockStream {
    private readonly calls = new CallsSoFar();
    private text = "";
    private phase: Phase = "head";
    private at = 0;
    private keys = new Set<string>();
    private value: OpenValue | undefined;

    public constructor(private readonly syntax: TaggedSyntax, private readonly tools: TextCallTools) {}

    public read(more: string): readonly CallSoFar[] {
        if (this.phase === "stopped")
            return this.calls.take();
        const text = this.text += more;
        for (let progressed = true; progressed;)
            progressed = this.phase === "head" ? this.readHead(text)
                : this.phase === "pairs" ? this.readPair(text)
                    : this.phase === "value" ? this.readValue(text, this.value!)
                        : false;
        this.letGo();
        return this.calls.take();
    }

    /**
     * Drops the text before the first place reading needs again (a string value's next unwritten character, a JSON
     * value's start), once that is most of it: appending to a long text copies it whole.
     */
    private letGo(): void {
        const value = this.value;
        const needed = value?.start == null ? this.at
            : Math.min(value.scan, value.kind === "string" ? value.start + value.written : Math.min(value.start, value.blank));
        if (needed < 4096 || needed < this.text.length / 2)
            return;
        this.text = this.text.slice(needed);
        this.at -= needed;
        if (value?.start != null) {
            // A string value's start may go below 0: only its next unwritten character is read again.
            value.start -= needed;
            value.scan -= needed;
            value.blank -= needed;
        }
    }

    private readHead(text: string): boolean {
        const head = this.syntax.head(text, this.at);
        if (head === "wait")
            return false;
        if (head == null || !this.tools.has(head.name))
            return this.stop();
        this.calls.start(head.name);
        this.keys = new Set();
        this.at = head.end;
        this.phase = "pairs";
        return true;
    }

    private readPair(text: string): boolean {
        const {pairOpen, pairMarker, callEnd, jsonBody} = this.syntax;
        const at = skipSpace(text, this.at);
        pairOpen.lastIndex = at;
        const match = pairOpen.exec(text);
        if (match == null) {
            const rest = text.slice(at);
            if (callEnd?.last === false && rest.startsWith(callEnd.marker)) {
                this.at = at + callEnd.marker.length;
                this.phase = "head";
                return true;
            }
            if (jsonBody && rest.startsWith("{"))
                return this.stop();
            // A tag still being written (a long one is not the format's: its reading would cost a search per chunk).
            const markers = callEnd == null ? [pairMarker] : [pairMarker, callEnd.marker];
            const maybe = markers.some((marker) => marker.startsWith(rest) || rest.startsWith(marker));
            return maybe && rest.length < 1024 ? false : this.stop();
        }
        const key = match[1]!.trim();
        const types = declaredTypes(this.tools.get(this.calls.name)!.params, key);
        // JSON.stringify puts integer keys first, keeps a repeated key at its first place, and `__proto__` is no key;
        // a first `params` the tool does not declare may be the whole arguments (typedArguments).
        if (this.keys.has(key) || /^(0|[1-9]\d*)$/.test(key) || key === "__proto__"
            || (this.keys.size === 0 && key === "params" && types == null))
            return this.stop();
        this.calls.write(`${this.keys.size === 0 ? "{" : ","}${JSON.stringify(key)}:`);
        this.keys.add(key);
        this.at = pairOpen.lastIndex;
        const kind = valueKindFrom(types ?? [], undefined);
        this.value = {start: undefined, scan: this.at, blank: this.at, types: types ?? [], kind, quoted: false, written: 0};
        this.phase = "value";
        return true;
    }

    private readValue(text: string, value: OpenValue): boolean {
        if (value.start == null) {
            const lead = this.syntax.trimNewline ? newlineAt(text, this.at) : 0;
            if (lead == null)
                return false;
            value.start = value.scan = value.blank = this.at + lead;
        }
        const start = value.start;
        const end = this.valueEnd(text, value);
        const closed = end.next != null;
        // The format's newline before the closing tag, or what may still become it, is not the value's.
        let certain = end.at;
        if (this.syntax.trimNewline && certain > start && text[certain - 1] === "\n")
            certain--;
        if (this.syntax.trimNewline && certain > start && text[certain - 1] === "\r" && (!closed || certain < end.at))
            certain--;
        if (value.kind == null) {
            const first = /\S/.exec(text.slice(value.blank, certain));
            value.blank = first == null ? certain : value.blank + first.index;
            value.kind = valueKindFrom(value.types, first?.[0]);
        }
        if (value.kind === "string") {
            const part = jsonStringPart(text.slice(start + value.written, certain), closed);
            this.calls.write((value.quoted ? "" : "\"") + part.json + (closed ? "\"" : ""));
            value.quoted = true;
            value.written += part.length;
        }
        if (!closed)
            return false;
        if (value.kind !== "string") {
            const content = text.slice(start, certain);
            const read = valueKind(value.types, content) === "string" ? {value: content} : parseJson(content.trim()) ?? {value: content};
            if (nestsDeeperThan(read.value, maxCallNesting - 1))
                return this.stop();
            this.calls.write(JSON.stringify(read.value));
        }
        this.value = undefined;
        this.at = end.next!;
        this.phase = end.callEnded ? "head" : "pairs";
        return true;
    }

    /**
     * Where the value certainly runs to: its closing tag once what follows it says it is one (`next`: where reading
     * goes on), or the first place a closing tag may start, or the text's end.
     */
    private valueEnd(text: string, value: OpenValue): {at: number, next?: number, callEnded?: boolean} {
        const {valueClose, pairMarker, callEnd} = this.syntax;
        for (let at = text.indexOf("<", value.scan); at >= 0; at = text.indexOf("<", at + 1)) {
            value.scan = at;
            if (text.startsWith(valueClose, at)) {
                const after = skipSpace(text, at + valueClose.length);
                const tail = text.slice(after, after + 64);
                if (text.startsWith(pairMarker, after))
                    return {at, next: after};
                if (callEnd != null && text.startsWith(callEnd.marker, after)) {
                    if (!callEnd.last)
                        return {at, next: after + callEnd.marker.length, callEnded: true};
                    if (skipSpace(text, after + callEnd.marker.length) === text.length)
                        return {at};
                } else if (pairMarker.startsWith(tail) || callEnd?.marker.startsWith(tail) === true)
                    return {at};
            } else if (at + valueClose.length > text.length && valueClose.startsWith(text.slice(at)))
                return {at};
            else if (callEnd?.last === false && callEnd.marker.startsWith(text.slice(at, at + callEnd.marker.length)))
                // The call ends at its first end tag, even inside a value: the block will not read.
                return {at};
        }
        value.scan = text.length;
        return {at: text.length};
    }

    private stop(): boolean {
        this.phase = "stopped";
        return false;
    }
}

/** The length of the one newline a value starts with (0 where it starts otherwise), or undefined while it cannot tell. */
function newlineAt(text: string, at: number): number | undefined {
    if (at >= text.length || (text[at] === "\r" && at + 1 >= text.length))
        return undefined;
    return text.startsWith("\n", at) ? 1 : text.startsWith("\r\n", at) ? 2 : 0;
}
