import type {LlamaContextSequence, Token} from "node-llama-cpp";
import type {TokenLogprob} from "../../types.js";
import {alignAnswer} from "./answerAlignment.js";
import {scoreWindow, type WindowScore} from "./logprobWindow.js";

/**
 * Positions scored per native evaluation. Each holds at most `candidateCount` probabilities in memory (and one
 * whole-vocabulary map at a time, see logprobWindow.ts), so a request's memory no longer grows with its length. Few,
 * because llama.cpp keeps a logits row of the whole vocabulary for every position that asks for an output, in a
 * buffer that keeps its largest size: 16 rows of Qwen2's 151,936 floats are 9.7 MB a sequence (64 were 39 MB).
 */
const windowTokens = 16;

/**
 * Log probabilities of the answer tokens a generation just produced on `sequence`, each with the `top` most likely
 * tokens at its position.
 *
 * node-llama-cpp's LlamaChat exposes no probabilities while it generates. So afterwards the answer is erased from the
 * sequence and evaluated again (`controlledEvaluate`) asking for the next-token distribution at each position: the
 * token before the answer yields the first answer token's distribution, and so on. The same tokens go back into the KV
 * cache, so the sequence still holds the turn's prefix for the next request. The answer is scored in windows of
 * `windowTokens`, each turned into its few numbers before the next is evaluated.
 *
 * Asking node-llama-cpp for a position's whole distribution builds a JavaScript Map of the vocabulary (151,936
 * entries on Qwen2's: ~100 ms on the event loop and ~10 MB each); one per answer token took a server to 4 GB and
 * then out of heap. logprobWindow.ts gets the same exact figures from the few most likely tokens instead.
 *
 * `lastEvaluated`: false when the token limit cut the answer: its last token was sampled but never evaluated, so it
 * ends the context one token short. Otherwise a stop trigger or end-of-turn token (never evaluated) followed it.
 */
export async function scoreAnswerTokens(sequence: LlamaContextSequence, answerTokensIn: readonly Token[], top: number,
    lastEvaluated: boolean): Promise<TokenLogprob[]> {
    const model = sequence.model;
    const aligned = alignAnswer(sequence.contextTokens, answerTokensIn, lastEvaluated, (tokens) => model.detokenize(tokens));
    if (aligned == null || aligned.answer.length === 0)
        return [];
    const {start, answer} = aligned;
    const context = sequence.contextTokens;
    const inputs = [context[start - 1]!, ...answer.slice(0, -1)];
    const scores: WindowScore[] = [];
    for (let offset = 0; offset < answer.length; offset += windowTokens) {
        const window = {position: start - 1 + offset, inputs: inputs.slice(offset, offset + windowTokens),
            answer: answer.slice(offset, offset + windowTokens)};
        scores.push(...await scoreWindow(sequence, window, top));
    }
    return answer.map((token, index) => {
        const {probability, alternatives} = scores[index]!;
        // SentencePiece drops a token's leading space when it is decoded alone: decode it after its predecessors.
        const before = answer.slice(Math.max(0, index - 8), index) as Token[];
        const entry = (candidate: Token, candidateProbability: number) => {
            const text = model.detokenize([candidate], false, before);
            // A probability that underflowed to 0 is reported as OpenAI reports the least likely tokens.
            return {token: text, logprob: Math.max(Math.log(candidateProbability), -9999), bytes: [...Buffer.from(text, "utf8")]};
        };
        return {...entry(token, probability), topLogprobs: alternatives.map(([candidate, p]) => entry(candidate, p))};
    });
}
