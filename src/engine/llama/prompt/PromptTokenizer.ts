import type {LlamaText, Token, Tokenizer} from "node-llama-cpp";
import type {SegmentTokenizer, TokenizeCall} from "./SegmentTokenizer.js";
import type {TokenizerWorker} from "./TokenizerWorker.js";

export type PromptTokenizerOptions = {
    /**
     * Text segments at least this long, and not tokenized before, go to the worker thread. Defaults to 16 Ki
     * characters: tokenizing costs about 1 µs per character, so a shorter one holds the event loop under ~20 ms.
     */
    offThreadCharacters?: number
};

/**
 * Tokenizes rendered prompts exactly as `LlamaText.tokenize` with the model's tokenizer would, without holding the
 * event loop: a first pass collects the long segments the segment cache does not hold, the worker tokenizes them,
 * and a second pass assembles the prompt with their tokens in place. Without a worker (or if it fails), long segments
 * are tokenized in place, as before.
 */
export class PromptTokenizer {
    private readonly offThreadCharacters: number;

    public constructor(private readonly segments: SegmentTokenizer, private readonly worker: TokenizerWorker | null,
        options: PromptTokenizerOptions = {}) {
        this.offThreadCharacters = options.offThreadCharacters ?? 16 * 1024;
    }

    public async tokenize(text: LlamaText): Promise<Token[]> {
        if (this.worker == null)
            return text.tokenize(this.segments);
        // Call positions are stable: the same LlamaText makes the same sequence of tokenizer calls on every pass.
        const longCalls = new Map<number, TokenizeCall>();
        let position = 0;
        text.tokenize(this.withCalls((...call) => {
            const index = position++;
            if (call[0].length >= this.offThreadCharacters && !this.segments.holds(...call)) {
                longCalls.set(index, call);
                return [];
            }
            return this.segments(...call);
        }));
        if (longCalls.size === 0)
            return text.tokenize(this.segments);

        const computed = new Map<number, Token[]>();
        for (const [index, call] of longCalls) {
            const tokens = await this.worker.tokenize(...call).catch(() => this.segments(...call));
            this.segments.remember(tokens, ...call);
            computed.set(index, tokens);
        }
        position = 0;
        return text.tokenize(this.withCalls((...call) => computed.get(position++) ?? this.segments(...call)));
    }

    /** A tokenizer with the segment tokenizer's other members, whose calls go to `tokenize`. */
    private withCalls(tokenize: (...call: TokenizeCall) => Token[]): Tokenizer {
        return Object.assign(tokenize, {
            detokenize: this.segments.detokenize,
            // node-llama-cpp's Tokenizer type declares these as methods; SegmentTokenizer's are arrow functions.
            // eslint-disable-next-line @typescript-eslint/unbound-method
            isSpecialToken: this.segments.isSpecialToken,
            // eslint-disable-next-line @typescript-eslint/unbound-method
            isEogToken: this.segments.isEogToken
        }) as Tokenizer;
    }
}
