import type {Token} from "node-llama-cpp";

/**
 * The answer's tokens up to `maxTokens`. node-llama-cpp 3.21.1's `LlamaCompletion` holds back a token whose text ends
 * inside a character until the next one, and skips its `maxTokens` check for the held token: when the last token
 * allowed is such a token, it generates one more and releases both together (seen on the synthetic model, greedy:
 * `max_output_tokens: 2` answered 3 tokens). The answer keeps the first `maxTokens`, as the limit promises. (`LlamaChat`
 * holds such a token too, but stops at `maxTokens` with it unreleased.)
 */
export class AnswerTokenBudget {
    /** Every token kept so far, in order (a cut release's text is detokenized after them). */
    public readonly taken: Token[] = [];
    /** A release went past the budget: the answer is shorter than what node-llama-cpp generated. */
    public overran = false;

    public constructor(private readonly maxTokens: number) {}

    /** The part of `released` that fits what is left of the budget: `released` itself when all of it does. */
    public take(released: Token[]): Token[] {
        const room = Math.max(0, this.maxTokens - this.taken.length);
        const kept = released.length <= room ? released : released.slice(0, room);
        for (const token of kept)
            this.taken.push(token);
        this.overran ||= kept !== released;
        return kept;
    }
}
