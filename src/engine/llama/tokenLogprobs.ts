import type {LlamaContextSequence, Token} from "node-llama-cpp";
import type {TokenLogprob} from "../types.js";

/** The model's own distribution (temperature 1, nothing truncated), as OpenAI reports logprobs, not the sampler's. */
const modelDistribution = {temperature: 1, topK: 0, topP: 1, minP: 0};

/**
 * Log probabilities of the answer tokens a generation just produced on `sequence`, each with the `top` most likely
 * tokens at its position.
 *
 * node-llama-cpp's LlamaChat exposes no probabilities while it generates. So afterwards the answer is erased from the
 * sequence and evaluated again in one batch (`controlledEvaluate`) asking for the next-token distribution at each
 * position: the token before the answer yields the first answer token's distribution, and so on. The same tokens go
 * back into the KV cache, so the sequence still holds the turn's prefix for the next request. The cost is one batched
 * evaluation of the answer (a fraction of generating it).
 *
 * `lastEvaluated`: false when the token limit cut the answer: its last token was sampled but never evaluated, so it
 * ends the context one token short. Otherwise a stop trigger or end-of-turn token (never evaluated) followed it.
 */
export async function scoreAnswerTokens(sequence: LlamaContextSequence, answer: readonly Token[], top: number,
    lastEvaluated: boolean): Promise<TokenLogprob[]> {
    const context = sequence.contextTokens;
    const start = answerStart(context, answer, lastEvaluated);
    if (start == null || answer.length === 0)
        return [];
    await sequence.eraseContextTokenRanges([{start: start - 1, end: sequence.nextTokenIndex}]);
    const inputs = [context[start - 1]!, ...answer.slice(0, -1)];
    const outputs = await sequence.controlledEvaluate(
        inputs.map((token) => [token, {generateNext: {probabilities: true, options: modelDistribution}}])
    );
    const model = sequence.model;
    return answer.map((token, index) => {
        const probabilities = outputs[index]?.next.probabilities ?? new Map<Token, number>();
        // SentencePiece drops a token's leading space when it is decoded alone: decode it after its predecessors.
        const before = answer.slice(Math.max(0, index - 8), index) as Token[];
        const entry = (candidate: Token, probability: number) => {
            const text = model.detokenize([candidate], false, before);
            // A probability that underflowed to 0 is reported as OpenAI reports the least likely tokens.
            return {token: text, logprob: Math.max(Math.log(probability), -9999), bytes: [...Buffer.from(text, "utf8")]};
        };
        const alternatives = [...probabilities.entries()].slice(0, top).map(([candidate, probability]) => entry(candidate, probability));
        return {...entry(token, probabilities.get(token) ?? 0), topLogprobs: alternatives};
    });
}

/**
 * Where the answer starts in the sequence's context: the latest position where its evaluated tokens sit (tokens of a
 * partly matched stop trigger or a following call may come after it). Never 0: the answer follows a prompt.
 */
function answerStart(context: readonly Token[], answer: readonly Token[], lastEvaluated: boolean): number | undefined {
    const evaluated = lastEvaluated ? answer.length : answer.length - 1;
    for (let start = context.length - evaluated; start >= 1; start--) {
        if (answer.slice(0, evaluated).every((token, index) => context[start + index] === token))
            return start;
        // A cut answer ends the context: it is there or nowhere.
        if (!lastEvaluated)
            return undefined;
    }
    return undefined;
}
