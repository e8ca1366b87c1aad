import type {LlamaContextSequence, Token} from "node-llama-cpp";

/** The model's own distribution (temperature 1, nothing truncated), as OpenAI reports logprobs, not the sampler's. */
const wholeVocabulary = {temperature: 1, topK: 0, topP: 1, minP: 0};

/**
 * Candidates asked for at each position: more than node-llama-cpp's default top-k of 40 and OpenAI's 20 alternatives,
 * so a sampled token is always among them; only a token a grammar forced can lie outside.
 */
export const candidateCount = 64;
const candidates = {...wholeVocabulary, topK: candidateCount};

/** Answer tokens to score from `position` of the sequence on: `inputs[i]` is evaluated to predict `answer[i]`. */
export type LogprobWindow = {position: number, inputs: readonly Token[], answer: readonly Token[]};

/** One answer token's probability under the model, and the `top` most likely tokens at its position, most likely first. */
export type WindowScore = {probability: number, alternatives: [Token, number][]};

type NextOptions = {probabilities?: boolean, confidence?: boolean, token?: boolean, options: object};
type Next = {probabilities?: Map<Token, number>, confidence?: number, token?: Token};

/**
 * Scores a window in two evaluations, neither of which hands the whole vocabulary to JavaScript:
 *  1. the `candidateCount` most likely tokens at each position, their probabilities renormalised over the candidates;
 *  2. the most likely token's true probability (greedy `confidence`: a softmax over the whole vocabulary, in native
 *     code), which scales every candidate back to the whole vocabulary: p = q · p(best) / q(best). Exact, not an
 *     estimate, because top-k keeps the raw logits' ratios.
 * A position whose answer token is no candidate asks for its whole distribution instead, one such position per
 * evaluation and one at a time in the process (`wholeVocabularyLane`), so memory stays bounded however many
 * requests score at once.
 */
export async function scoreWindow(sequence: LlamaContextSequence, window: LogprobWindow, top: number): Promise<WindowScore[]> {
    const ranked = await evaluateFrom(sequence, window, 0, window.inputs.map(() => ({probabilities: true, options: candidates})));
    const candidateLists = ranked.map((next) => next.probabilities ?? new Map<Token, number>());
    const outside = window.answer.map((token, index) => !candidateLists[index]!.has(token));
    const scores: WindowScore[] = [];
    let from = 0;
    for (let index = 0; index <= window.answer.length; index++) {
        if (index < window.answer.length && !outside[index])
            continue;
        const to = Math.min(index + 1, window.answer.length);
        if (to > from) {
            const options = window.inputs.slice(from, to).map((_, offset): NextOptions => outside[from + offset]
                ? {probabilities: true, options: wholeVocabulary}
                : {confidence: true, token: true, options: {temperature: 0}});
            const evaluate = () => evaluateFrom(sequence, window, from, options);
            const nexts = outside[to - 1] ? await wholeVocabularyLane(evaluate) : await evaluate();
            nexts.forEach((next, offset) => scores.push(score(window.answer[from + offset]!, candidateLists[from + offset]!, next, top)));
        }
        from = to;
    }
    return scores;
}

function score(token: Token, candidateList: Map<Token, number>, next: Next, top: number): WindowScore {
    if (next.probabilities != null)
        return {probability: next.probabilities.get(token) ?? 0, alternatives: [...next.probabilities.entries()].slice(0, top)};
    const best = next.token != null ? candidateList.get(next.token) : undefined;
    const scale = best != null && best > 0 ? (next.confidence ?? 0) / best : 0;
    return {
        probability: (candidateList.get(token) ?? 0) * scale,
        alternatives: [...candidateList.entries()].slice(0, top).map(([candidate, q]) => [candidate, q * scale])
    };
}

/** Erases the sequence from the window's `from`-th position on and evaluates the window's inputs from there. */
async function evaluateFrom(sequence: LlamaContextSequence, window: LogprobWindow, from: number, next: NextOptions[]): Promise<Next[]> {
    const position = window.position + from;
    if (sequence.nextTokenIndex > position)
        await sequence.eraseContextTokenRanges([{start: position, end: sequence.nextTokenIndex}]);
    const inputs = window.inputs.slice(from, from + next.length);
    const outputs = await sequence.controlledEvaluate(inputs.map((token, index) => [token, {generateNext: next[index]!}]));
    return inputs.map((_, index) => (outputs[index]?.next ?? {}) as Next);
}

let lane: Promise<unknown> = Promise.resolve();

/** Runs whole-vocabulary evaluations one at a time in the process: each holds a Map of every token while it lasts. */
function wholeVocabularyLane<T>(work: () => Promise<T>): Promise<T> {
    const run = lane.then(work);
    lane = run.catch(() => undefined);
    return run;
}
