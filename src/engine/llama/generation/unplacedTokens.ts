import type {LlamaChat, LlamaContextSequence, Token} from "node-llama-cpp";

/**
 * The last line of defence of "nothing generated is ever dropped": the tokens the model wrote after the last ones
 * LlamaChat released in a chunk, with their text (control tokens written out). LlamaChat holds back text that could be
 * the start of a stop trigger or of a call (Granite 3.3's `<|tool_call|>[{"name":`, where its call prefix goes on with
 * ` "`), and drops it when the turn then ends: the caller gives it back as answer text.
 *
 * The sequence holds the prompt, then the response: the thought opener LlamaChat writes itself where a thought opens
 * with the response (thoughtOpenedOnStart.ts), what the model generated, and a thought closer LlamaChat writes where the
 * thought budget ends a thought. So what was held is found after the last released tokens, not by counting. The end
 * token that ended the turn is never evaluated (not there); a last token sampled at the token limit may not be either,
 * and then nothing is found: only held text is ever given back, never released text twice. Only meaningful where the
 * turn ended by the model's end token or the token limit, without a call (a call's syntax is partly LlamaChat's own
 * writing; a stop trigger ends the answer on purpose).
 */
export function unplacedTokens(sequence: LlamaContextSequence, promptLength: number, chat: LlamaChat,
    lastReleased: readonly Token[]): {tokens: Token[], text: string} {
    const response = sequence.contextTokens.slice(promptLength);
    const from = lastReleased.length === 0 ? afterOpener(response, chat, sequence) : endOfLast(response, lastReleased);
    const tokens = from < 0 ? [] : response.slice(from);
    const text = withoutThoughtMarks(tokens.length === 0 ? "" : sequence.model.detokenize(tokens, true), chat);
    return text.trim() === "" ? {tokens: [], text: ""} : {tokens, text};
}

/**
 * `text` without the thought's opener and closer at its start: LlamaChat reads them as the segment's bounds (never
 * released as text), and writes the closer itself where the thought budget ends a thought; neither is the answer's.
 */
function withoutThoughtMarks(text: string, chat: LlamaChat): string {
    const thought = chat.chatWrapper.settings.segments?.thought;
    const marks = [thought?.prefix, thought?.suffix].map((mark) => textOf(mark).trim()).filter((mark) => mark !== "");
    let rest = text;
    for (let mark = marks.find((candidate) => rest.trimStart().startsWith(candidate)); mark != null;
        mark = marks.find((candidate) => rest.trimStart().startsWith(candidate)))
        rest = rest.trimStart().slice(mark.length);
    return rest;
}

/** A segment mark's text; none for `{type: "openedOnStart"}` (a thought the prompt itself opened). */
function textOf(mark: string | object | undefined): string {
    return mark == null || (typeof mark === "object" && "type" in mark) ? "" : String(mark);
}

/** Where the model's own tokens start: after the thought opener LlamaChat wrote, if it wrote one. */
function afterOpener(response: readonly Token[], chat: LlamaChat, sequence: LlamaContextSequence): number {
    const thought = chat.chatWrapper.settings.segments?.thought;
    if (thought?.openOnResponseStart !== true || thought.prefix == null)
        return 0;
    const opener = sequence.model.tokenize(textOf(thought.prefix), true);
    return opener.every((token, index) => response[index] === token) ? opener.length : 0;
}

/** The index after the last run of `run` in `tokens`, or -1 where it is not there. */
function endOfLast(tokens: readonly Token[], run: readonly Token[]): number {
    for (let at = tokens.length - run.length; at >= 0; at--)
        if (run.every((token, index) => tokens[at + index] === token))
            return at + run.length;
    return -1;
}
