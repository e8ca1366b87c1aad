import type {LlamaModel, Token} from "node-llama-cpp";
import type {AnswerAccountant} from "./AnswerAccountant.js";
import type {CallArgumentsStream} from "./CallArgumentsStream.js";
import type {TextCallFormat} from "../families/textCallFormats.js";
import {TextCallReader, type ReadCall, type TextCallSink} from "../families/TextCallReader.js";
import type {TextCallTools} from "../families/textCallTypes.js";

/** What a reader wrote during one chunk, kept in order: thought or answer text, or a call's event. */
type Written = {text: string, thought: boolean} | {call: () => void};

/**
 * A text-call family's answer and thought, each read for the family's call opener. A thought the server opened
 * (thoughtOpenedOnStart.ts) holds whatever the model writes first, its call too: the opener ends the thought there, and
 * from it on everything the model writes (in the thought or after it) is read as the answer's would be. Calls stream
 * as they are read (`callStream`: the same events as node-llama-cpp's own calls); what the readers write during a
 * chunk is handed on once it is read, in order, so the chunk's tokens go with its first text.
 */
export class AnswerAndThoughtReaders {
    private readonly answer: TextCallReader;
    private readonly thought: TextCallReader;
    private readonly textOf: (tokens: readonly Token[]) => string;
    private readonly written: Written[] = [];

    public constructor(format: TextCallFormat, tools: TextCallTools, maxCalls: number | undefined, model: LlamaModel,
        callStream: CallArgumentsStream) {
        const later = (call: () => void) => this.written.push({call});
        const calls: Omit<TextCallSink, "text"> = {
            start: (index, name) => later(() => callStream.push(index, name, "", false)),
            delta: (index, json) => later(() => callStream.push(index, "", json, false)),
            end: (index, incomplete) => later(() => incomplete ? callStream.abandon(index) : callStream.push(index, "", "", true))
        };
        this.answer = new TextCallReader(format, tools, {...calls, text: (text) => this.written.push({text, thought: false})}, maxCalls);
        // The thought's reader writes thought text until its opener; after a call, answer text.
        const thoughtText = (text: string) => this.written.push({text, thought: !this.thought.inCall});
        this.thought = new TextCallReader(format, tools, {...calls, text: thoughtText}, maxCalls);
        this.textOf = answerTextWithSpecialTokens(model);
    }

    /** A chunk of the answer or of a thought (whose text is LlamaChat's, without control tokens, as thoughts always were). */
    public push({tokens, text: chunkText}: {tokens: readonly Token[], text: string}, inThought: boolean, thoughtEnded: boolean,
        accountant: AnswerAccountant): void {
        const text = this.textOf(tokens);
        if (this.thought.inCall) {
            this.thought.push(text);
            this.handOn(accountant, []);
        } else if (!inThought) {
            this.answer.push(text);
            this.handOn(accountant, tokens);
        } else {
            this.thought.push(chunkText);
            // Text held back as a possible opener's start is the thought's once the thought ends without a call.
            if (thoughtEnded && !this.thought.inCall)
                this.thought.finish();
            this.handOn(accountant, tokens, {ended: thoughtEnded || this.thought.inCall});
        }
    }

    /**
     * The calls read to their end, once everything written is handed on; a thought still open gets back the text it
     * held. `cut`: the token limit ended the answer (see TextCallReader.finish).
     */
    public finish(accountant: AnswerAccountant, cut: boolean): ReadCall[] {
        if (this.thought.inCall) {
            const calls = this.thought.finish(cut);
            this.handOn(accountant, []);
            return calls;
        }
        this.thought.finish();
        this.handOn(accountant, [], {ended: false});
        const calls = this.answer.finish(cut);
        this.handOn(accountant, []);
        return calls;
    }

    /**
     * Hands on what was written: the thought's text as one chunk with `tokens` (where the chunk was a thought's), then
     * answer text and calls in order, the tokens with the first text (or alone where the chunk wrote none).
     */
    private handOn(accountant: AnswerAccountant, tokens: readonly Token[], thought?: {ended: boolean}): void {
        const written = this.written.splice(0);
        let owed = tokens;
        if (thought != null) {
            const text = written.map((item) => "text" in item && item.thought ? item.text : "").join("");
            if (text !== "" || owed.length > 0 || thought.ended)
                accountant.thoughtChunk(owed, text, thought.ended);
            owed = [];
        } else if (owed.length > 0 && !written.some((item) => "text" in item))
            accountant.answerChunk(owed, "");
        for (const item of written)
            if ("call" in item)
                item.call();
            else if (!item.thought) {
                accountant.answerChunk(owed, item.text);
                owed = [];
            }
    }
}

/**
 * The answer's text with special tokens written out: a family's call opener may be a control token (which LlamaChat's
 * text leaves out), and the reader must see it. Outside calls the text is the same (end-of-turn tokens are not in it).
 */
function answerTextWithSpecialTokens(model: LlamaModel): (tokens: readonly Token[]) => string {
    const trail: Token[] = [];
    return (tokens) => {
        const text = model.detokenize(tokens, true, trail);
        trail.push(...tokens);
        trail.splice(0, Math.max(0, trail.length - 8));
        return text;
    };
}
