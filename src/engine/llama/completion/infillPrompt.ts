import type {ContextChunk} from "../../completionTypes.js";

/**
 * A model's fill-in-the-middle tokens (GGUF `tokenizer.ggml.fim_pre/suf/mid`, which llama.cpp also finds by their text:
 * Qwen's `<|fim_prefix|>`, StarCoder's `<fim_prefix>`, …) and, where its vocabulary has them, the repository-level
 * ones that name the project and separate files (Qwen2.5-Coder's `<|repo_name|>` and `<|file_sep|>`).
 */
export type FimTokens = {prefix: number, suffix: number, middle: number, repoName: number | null, fileSeparator: number | null};

/** The parts of a fill-in-the-middle prompt: the text before the gap, after it, and other files for context. */
export type InfillParts = {prefix: string, suffix: string, extra?: readonly ContextChunk[]};

/** Text to tokens, special-token text read as plain text (a prompt cannot smuggle a control token in). */
export type PlainTokenizer = (text: string) => number[];

/** llama.cpp's names where the prompt has no real ones: the project, and the file being edited (`format_infill`). */
const projectName = "myproject";
const currentFileName = "filename";
/** Between context files of a model without a file separator token: llama.cpp's plain-text separator. */
const snippetSeparator = "\n\n--- snippet ---\n\n";

/**
 * The prompt tokens of a fill-in-the-middle request, in the prefix-suffix-middle order every family with a middle token
 * documents, as llama.cpp's server builds them (`format_infill`):
 *
 *     [<repo_name> myproject\n] (<file_sep> NAME\n TEXT)… [<file_sep> filename\n] <fim_prefix> PREFIX <fim_suffix> SUFFIX <fim_middle>
 *
 * The repository part appears only with context files (Qwen2.5-Coder's plain FIM format has none). A model without
 * the repository tokens gets its files as plain text before the prefix, each after llama.cpp's snippet separator.
 * No beginning token: `LlamaCompletion` adds the one its vocabulary wants.
 */
export function buildInfillPrompt(parts: InfillParts, fim: FimTokens, tokenize: PlainTokenizer): number[] {
    const tokens: number[] = [];
    const extra = parts.extra ?? [];
    if (extra.length > 0) {
        if (fim.repoName != null)
            tokens.push(fim.repoName, ...tokenize(`${projectName}\n`));
        for (const chunk of extra) {
            if (fim.fileSeparator != null)
                tokens.push(fim.fileSeparator, ...tokenize(`${chunk.filename}\n`));
            else
                tokens.push(...tokenize(snippetSeparator));
            tokens.push(...tokenize(chunk.text));
        }
        if (fim.fileSeparator != null)
            tokens.push(fim.fileSeparator, ...tokenize(`${currentFileName}\n`));
    }
    tokens.push(fim.prefix, ...tokenize(parts.prefix), fim.suffix, ...tokenize(parts.suffix), fim.middle);
    return tokens;
}
