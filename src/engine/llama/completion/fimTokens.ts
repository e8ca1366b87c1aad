import type {LlamaModel} from "node-llama-cpp";
import type {FimTokens} from "./infillPrompt.js";

/** How the families that have them spell their repository tokens (Qwen2.5-Coder, then StarCoder 2 and Granite). */
const repoNameTexts = ["<|repo_name|>", "<repo_name>", "<reponame>"];
const fileSeparatorTexts = ["<|file_sep|>", "<file_sep>"];

/**
 * The model's fill-in-the-middle tokens as llama.cpp resolved them (node-llama-cpp's `tokens.infill`: the GGUF ids, else
 * found by their text), with its repository tokens where its vocabulary has them; null for a model without all three of
 * prefix, suffix and middle.
 */
export function fimTokensOf(model: LlamaModel): FimTokens | null {
    const {prefix, suffix, middle} = model.tokens.infill;
    if (prefix == null || suffix == null || middle == null)
        return null;
    return {prefix, suffix, middle, repoName: specialToken(model, repoNameTexts), fileSeparator: specialToken(model, fileSeparatorTexts)};
}

/** The first of `texts` that the vocabulary holds as one special token. */
function specialToken(model: LlamaModel, texts: readonly string[]): number | null {
    for (const text of texts) {
        const tokens = model.tokenize(text, true);
        if (tokens.length === 1 && model.tokenize(text, false).length > 1)
            return tokens[0]!;
    }
    return null;
}
