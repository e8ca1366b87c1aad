import type {LlamaModel} from "node-llama-cpp";
import type {ChatTurn} from "./types.js";

/** GGUF token type of control tokens (`<|im_start|>`…): the chat template writes them, client text never yields one. */
const controlTokenType = 3;

/**
 * The most characters one token can stand for: the longest vocabulary entry that client text can produce, as the
 * GGUF file spells it. The file's spelling is never shorter than the text (byte-level BPE spells each byte as one
 * character, SentencePiece a space as `▁` and a raw byte as `<0xNN>`), so this over-estimates, which keeps the bound
 * below safe. `Infinity` when the file lists no vocabulary (no early refusal then).
 */
export function maxTokenCharacters(model: LlamaModel): number {
    const ggml = model.fileInfo.metadata.tokenizer?.ggml as {tokens?: unknown, token_type?: unknown} | undefined;
    const tokens = ggml?.tokens;
    if (!Array.isArray(tokens) || tokens.length === 0)
        return Infinity;
    const types = Array.isArray(ggml?.token_type) ? ggml.token_type as number[] : [];
    let longest = 1;
    for (let index = 0; index < tokens.length; index++) {
        const token = tokens[index];
        if (typeof token === "string" && types[index] !== controlTokenType)
            longest = Math.max(longest, token.length);
    }
    return longest;
}

/**
 * A lower bound on a prompt's tokens, from the characters of the client text that every chat template renders verbatim
 * (messages, earlier answers, tool calls and their results; not earlier thoughts, which some templates drop), each
 * token standing for at most `maxTokenChars` of them. It costs one pass over the lengths, so an input that cannot fit
 * the context is refused without tokenizing megabytes first.
 */
export function minimumPromptTokens(turns: readonly ChatTurn[], maxTokenChars: number): number {
    let characters = 0;
    for (const turn of turns) {
        if (turn.role !== "model") {
            characters += turn.text.length;
            continue;
        }
        for (const part of turn.parts) {
            if (part.type === "text")
                characters += part.text.length;
            else if (part.type === "call")
                characters += part.arguments.length + part.result.length;
        }
    }
    return Math.floor(characters / maxTokenChars);
}
