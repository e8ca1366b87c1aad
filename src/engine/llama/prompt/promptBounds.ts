import type {LlamaModel} from "node-llama-cpp";
import type {ChatTurn, ToolSpec} from "../../types.js";

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
        const token: unknown = tokens[index];
        if (typeof token === "string" && types[index] !== controlTokenType)
            longest = Math.max(longest, token.length);
    }
    return longest;
}

/**
 * A lower bound on a prompt's tokens, from the characters of the client text that every chat template renders verbatim
 * (messages, earlier answers, tool calls and their results, the offered tools' verbatim parts; not earlier thoughts, which some
 * templates drop), each
 * token standing for at most `maxTokenChars` of them. It costs one pass over the lengths, so an input that cannot fit
 * the context is refused without tokenizing megabytes first.
 */
export function minimumPromptTokens(turns: readonly ChatTurn[], maxTokenChars: number, tools: readonly ToolSpec[] = []): number {
    let characters = toolCharacters(tools);
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

/**
 * The characters of the offered tools that every wrapper renders verbatim: names, descriptions, the parameters' property
 * names, descriptions and string enum values (node-llama-cpp's wrappers write them into a TypeScript-like declaration
 * with doc comments; Jinja templates get the JSON whole). Schema keywords are left out: their rendering varies.
 */
function toolCharacters(tools: readonly ToolSpec[]): number {
    let characters = 0;
    for (const tool of tools)
        characters += tool.name.length + (tool.description?.length ?? 0) + schemaCharacters(tool.parameters, 0);
    return characters;
}

/** Deep enough for any schema a request may carry (its nesting is bounded at parse time); deeper parts count as 0. */
const maxCountedDepth = 64;

function schemaCharacters(schema: unknown, depth: number): number {
    if (schema == null || typeof schema !== "object" || depth > maxCountedDepth)
        return 0;
    if (Array.isArray(schema))
        return schema.reduce((sum: number, entry) => sum + schemaCharacters(entry, depth + 1), 0);
    const node = schema as Record<string, unknown>;
    let characters = typeof node.description === "string" ? node.description.length : 0;
    if (Array.isArray(node.enum))
        for (const value of node.enum)
            characters += typeof value === "string" ? value.length : 0;
    if (node.properties != null && typeof node.properties === "object")
        for (const [name, property] of Object.entries(node.properties as Record<string, unknown>))
            characters += name.length + schemaCharacters(property, depth + 1);
    // Only what renders wherever it stands: an unreferenced `$defs` entry, say, may not render at all.
    for (const key of ["items", "anyOf", "oneOf"])
        characters += schemaCharacters(node[key], depth + 1);
    return characters;
}
