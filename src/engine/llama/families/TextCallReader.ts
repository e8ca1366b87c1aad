import type {TextCallFormat} from "./textCallFormats.js";
import type {BlockStream, TextCall, TextCallTools} from "./textCallTypes.js";

/**
 * Where a reader's output goes, in the order the model wrote it: answer text, and calls as they are read (numbered
 * from 0 in the order they start; a call's deltas add up to JSON.stringify of its arguments). A call ended
 * `incomplete` did not read to its end (a block that is not a call after all): what was said of it stands.
 */
export type TextCallSink = {
    text(text: string): void,
    start(index: number, name: string): void,
    delta(index: number, json: string): void,
    end(index: number, incomplete: boolean): void
};

/** A call read to its end, and the number the sink knows it by. */
export type ReadCall = TextCall & {index: number};

/** A call the sink was told of: its number, name and the JSON said so far. */
type SaidCall = {index: number, name: string, json: string};

/**
 * A call block being read: its text so far in pieces (joined once, at its end), the end held back while it may be the
 * closer's start, its stream and the calls it told of.
 */
type OpenBlock = {pieces: string[], tail: string, stream: BlockStream, said: SaidCall[]};

/**
 * Reads a freely generated answer for calls in a text format (textCallFormats.ts) as it streams. Answer text is passed
 * on until the format's opener; text that could be the opener's start is held back until the next chunk tells. From
 * the opener to the closer is a call block: the format's block stream says its calls' names and arguments as they are
 * written, and at the closer (or the answer's end) the block is read whole: calls, which the streamed JSON then
 * completes, or, where it is not a complete call of an offered tool, the block's text as the model wrote it. Spaces
 * between blocks are the format's; text after them is the answer's again.
 */
export class TextCallReader {
    private held = "";
    private block: OpenBlock | undefined;
    private opened = false;
    /** Spaces after a call block are held back: dropped where another block or the end follows. */
    private afterBlock = false;
    private readonly calls: ReadCall[] = [];
    private started = 0;

    public constructor(private readonly format: TextCallFormat, private readonly tools: TextCallTools, private readonly sink: TextCallSink,
        private readonly maxCalls = Number.POSITIVE_INFINITY) {}

    /** Whether a call block has started: the answer's text ended where it did. */
    public get inCall(): boolean {
        return this.opened;
    }

    public push(chunk: string): void {
        const {opener, closer} = this.format;
        let text = chunk;
        while (text !== "") {
            const block = this.block;
            if (block != null) {
                const scan = block.tail + text;
                const end = scan.indexOf(closer);
                const keep = end >= 0 ? scan.length - end : partialSuffixLength(scan, closer);
                const piece = scan.slice(0, scan.length - keep);
                block.pieces.push(piece);
                block.tail = scan.slice(scan.length - keep);
                this.say(block, block.stream.read(piece));
                if (end < 0)
                    return;
                text = scan.slice(end + closer.length);
                this.endBlock(block, true, false);
                continue;
            }
            const all = this.held + text;
            const at = all.indexOf(opener);
            const keep = at >= 0 ? all.length - at : partialSuffixLength(all, opener);
            const before = all.slice(0, all.length - keep);
            this.held = all.slice(all.length - keep);
            if (this.afterBlock && before.trim() === "")
                this.held = before + this.held;
            else
                this.answer(before);
            if (at < 0)
                return;
            this.opened = true;
            this.block = {pieces: [], tail: "", stream: this.format.streamBlock(this.tools), said: []};
            text = all.slice(at + opener.length);
            this.held = "";
        }
    }

    /**
     * Ends the answer: a block still open is read as it stands (the model may end its turn right after a call, the
     * closer being its stop text). One `cut` by the token limit that does not read keeps its streamed calls open (the
     * response ends them incomplete) instead of giving its text back. Returns the calls read to their end.
     */
    public finish(cut = false): ReadCall[] {
        if (this.block != null)
            this.endBlock(this.block, false, cut);
        else if (!this.afterBlock || this.held.trim() !== "")
            this.answer(this.held);
        this.held = "";
        return this.calls;
    }

    private answer(text: string): void {
        if (text === "")
            return;
        this.afterBlock = false;
        this.sink.text(text);
    }

    /** Says what the block's stream newly tells: calls started (within maxCalls), their arguments' JSON grown. */
    private say(block: OpenBlock, calls: readonly {name: string, json: string}[]): void {
        for (const [position, call] of calls.entries()) {
            let said: SaidCall | undefined = block.said[position];
            if (said == null) {
                if (this.calls.length + position >= this.maxCalls)
                    return;
                said = {index: this.started++, name: call.name, json: ""};
                block.said.push(said);
                this.sink.start(said.index, said.name);
            }
            if (call.json !== "") {
                this.sink.delta(said.index, call.json);
                said.json += call.json;
            }
        }
    }

    /** Reads a whole block: its calls completed, or its text given back (see finish for one cut). */
    private endBlock(block: OpenBlock, closed: boolean, cut: boolean): void {
        this.block = undefined;
        const {opener, closer} = this.format;
        const text = opener + block.pieces.join("") + (closed ? closer : block.tail);
        const calls = this.format.parse(text, this.tools);
        if (calls == null) {
            if (cut && block.said.length > 0)
                return;
            for (const said of block.said)
                this.sink.end(said.index, true);
            this.answer(text);
            return;
        }
        for (const [position, call] of calls.entries()) {
            if (this.calls.length >= this.maxCalls)
                break;
            const json = JSON.stringify(call.arguments);
            let said: SaidCall | undefined = block.said[position];
            // The stream's JSON is always the start of the read call's; a call it told otherwise is ended and told again.
            if (said != null && (said.name !== call.name || !json.startsWith(said.json))) {
                this.sink.end(said.index, true);
                said = undefined;
            }
            if (said == null) {
                said = {index: this.started++, name: call.name, json: ""};
                this.sink.start(said.index, call.name);
            }
            if (json.length > said.json.length)
                this.sink.delta(said.index, json.slice(said.json.length));
            this.sink.end(said.index, false);
            this.calls.push({...call, index: said.index});
        }
        for (const said of block.said.slice(calls.length))
            this.sink.end(said.index, true);
        this.afterBlock = true;
    }
}

/** The length of the longest end of `text` that `opener` starts with. */
function partialSuffixLength(text: string, opener: string): number {
    for (let length = Math.min(opener.length - 1, text.length); length > 0; length--)
        if (opener.startsWith(text.slice(text.length - length)))
            return length;
    return 0;
}
