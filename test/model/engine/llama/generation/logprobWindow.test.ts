import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import type {Llama, LlamaContext, LlamaModel, Token} from "node-llama-cpp";
import {loadNodeLlamaCpp} from "../../../../../src/engine/models/loadBinding.js";
import {candidateCount, scoreWindow} from "../../../../../src/engine/llama/generation/logprobWindow.js";
import {syntheticModel} from "../../../../helpers/syntheticModel.js";

const wholeVocabulary = {temperature: 1, topK: 0, topP: 1, minP: 0};

/**
 * scoreWindow against the model's whole distribution, on Qwen2's 151,936-token vocabulary: the figures it derives from
 * 64 candidates and a greedy confidence must be the exact probabilities, on both of its paths (a token among the
 * candidates, and one a grammar could force from the far tail).
 */
describe("logprobWindow: exact probabilities without the whole vocabulary", () => {
    let llama: Llama;
    let model: LlamaModel;
    let context: LlamaContext;

    before(async () => {
        const {getLlama} = await loadNodeLlamaCpp();
        llama = await getLlama({gpu: false, build: "never", maxThreads: 1});
        model = await llama.loadModel({modelPath: await syntheticModel("tiny-64", "qwen2")});
        context = await model.createContext({contextSize: 512, threads: 1});
    });
    after(async () => {
        await context.dispose();
        await model.dispose();
        await llama.dispose();
    });

    it("matches the whole-vocabulary distribution, for likely and far-tail answer tokens", async () => {
        const prompt = model.tokenize("Once upon a time there was a little cat who liked to play.");
        const sequence = context.getSequence();
        // What each position's whole distribution says: the reference, taken the way the old scorer took it.
        const whole = {generateNext: {probabilities: true, options: wholeVocabulary}};
        const reference = await sequence.controlledEvaluate(prompt.map((token) => [token, whole]));
        const distributions = reference.map((output) => [...output!.next.probabilities!.entries()]);
        // Answer tokens: the likeliest at even positions, one from deep in the tail (never a candidate) at odd ones.
        const inputs = prompt.slice(4, 12);
        const answer = inputs.map((_, index) => {
            const ranked = distributions[4 + index]!;
            return index % 2 === 0 ? ranked[0]![0] : ranked[candidateCount * 100]![0];
        }) as Token[];
        await sequence.eraseContextTokenRanges([{start: 4, end: sequence.nextTokenIndex}]);
        const scores = await scoreWindow(sequence, {position: 4, inputs, answer}, 5);

        assert.equal(scores.length, answer.length);
        scores.forEach((score, index) => {
            const ranked = distributions[4 + index]!;
            const expected = new Map(ranked).get(answer[index]!)!;
            assert.ok(Math.abs(score.probability - expected) <= expected * 1e-3, `position ${index}: ${score.probability} vs ${expected}`);
            assert.deepEqual(score.alternatives.map(([token]) => token), ranked.slice(0, 5).map(([token]) => token));
            score.alternatives.forEach(([, probability], rank) =>
                assert.ok(Math.abs(probability - ranked[rank]![1]) <= ranked[rank]![1] * 1e-3));
        });
        // The sequence holds the prompt again, as the next turn's prefix expects.
        assert.deepEqual(sequence.contextTokens.slice(0, 12), prompt.slice(0, 12));
        await sequence.dispose();
    });
});
