import type {Token, Tokenizer} from "node-llama-cpp";

export type SegmentTokenizerOptions = {
    /** Text segments kept (least recently used ones go first). Defaults to 4096. */
    maxSegments?: number,
    /** Characters of text kept in all. Defaults to 8 Mi (about 16 MiB of strings plus their tokens). */
    maxCharacters?: number
};

/**
 * A model's tokenizer that remembers the tokens of the text segments it has seen.
 *
 * Why: a rendered chat prompt is tokenized piece by piece, between its special tokens (node-llama-cpp's
 * `LlamaText.tokenize`), so every earlier message of a conversation is a segment seen on the previous turn. The
 * engine tokenizes each prompt to pick the sequence holding its prefix; without the cache that cost grows with
 * the history (0.63 ms for a 1014-token prompt of stories260K) although only the newest turn is new. A segment's
 * tokens depend only on its text and options, so a hit returns exactly what the model would, except for the model's
 * own answers (`rememberAnswer`), which come back as the tokens it generated: they spell the same text.
 */
/** The arguments of one tokenizer call on a text segment (`LlamaText.tokenize` makes one per segment). */
export type TokenizeCall = [text: string, specialTokens?: boolean | "builtin", options?: "trimLeadingSpace"];

/** A caching tokenizer that can also say what it holds and be given tokens computed elsewhere (a worker thread). */
export type SegmentTokenizer = Tokenizer & ((...call: TokenizeCall) => Token[]) & {
    holds(...call: TokenizeCall): boolean,
    remember(tokens: readonly Token[], ...call: TokenizeCall): void,
    /**
     * Keeps the tokens a model generated as the tokens of their text inside a later prompt, where a chat template
     * renders an answer as its own segment (after the assistant's header). Why: a model does not always write the
     * text's canonical tokenization (a random-weight model almost never does, a real one at times, sampling more
     * often), and a re-tokenized answer differs from what its sequence holds from that point, so the next turn
     * evaluated the whole answer again instead of only its new tokens. Kept only when the tokens spell the text.
     */
    rememberAnswer(text: string, tokens: readonly Token[]): boolean
};

export function createSegmentTokenizer(tokenizer: Tokenizer, options: SegmentTokenizerOptions = {}): SegmentTokenizer {
    const maxSegments = options.maxSegments ?? 4096;
    const maxCharacters = options.maxCharacters ?? 8 * 1024 * 1024;
    // The Tokenizer type is an overload pair; the cache passes its arguments through unchanged.
    const uncached = tokenizer as (text: string, specialTokens?: boolean | "builtin", options?: "trimLeadingSpace") => Token[];
    /** Insertion order is recency order: a hit is moved to the end. */
    const cache = new Map<string, readonly Token[]>();
    let characters = 0;

    const cacheable = (text: string) => text !== "" && text.length <= maxCharacters / 4;
    const keyOf = (...[text, specialTokens, tokenizeOptions]: TokenizeCall) =>
        `${specialTokens === "builtin" ? "b" : specialTokens ? "s" : "t"}${tokenizeOptions === "trimLeadingSpace" ? "1" : "0"}${text}`;
    const remember = (tokens: readonly Token[], ...call: TokenizeCall) => {
        if (!cacheable(call[0]))
            return;
        const key = keyOf(...call);
        if (!cache.has(key))
            characters += key.length;
        cache.delete(key);
        cache.set(key, tokens.slice());
        for (const [oldest] of cache) {
            if (cache.size <= maxSegments && characters <= maxCharacters)
                break;
            cache.delete(oldest);
            characters -= oldest.length;
        }
    };

    const tokenize = (...call: TokenizeCall): Token[] => {
        if (!cacheable(call[0]))
            return uncached(...call);
        const key = keyOf(...call);
        const cached = cache.get(key);
        if (cached != null) {
            cache.delete(key);
            cache.set(key, cached);
            return [...cached];
        }
        const tokens = uncached(...call);
        remember(tokens, ...call);
        return tokens;
    };
    return Object.assign(tokenize, {
        holds: (...call: TokenizeCall) => cacheable(call[0]) && cache.has(keyOf(...call)),
        remember,
        rememberAnswer: (text: string, tokens: readonly Token[]) => {
            if (tokens.length === 0 || tokenizer.detokenize(tokens as Token[]) !== text)
                return false;
            // An answer follows its role's header, so `LlamaText.tokenize` asks for it without a leading space.
            remember(tokens, text, false, "trimLeadingSpace");
            return true;
        },
        detokenize: tokenizer.detokenize,
        isSpecialToken: (token: Token) => tokenizer.isSpecialToken(token),
        isEogToken: (token: Token) => tokenizer.isEogToken(token)
    }) as SegmentTokenizer;
}
