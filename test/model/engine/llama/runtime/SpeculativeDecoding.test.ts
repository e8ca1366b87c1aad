import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {LlamaEngine} from "../../../../../src/engine/llama/LlamaEngine.js";
import type {ChatTurn, GenerationRequest} from "../../../../../src/engine/types.js";
import type {SpeculativeSetting} from "../../../../../src/engine/llama/runtime/SpeculativeDecoding.js";
import {withEngine} from "../../../../helpers/loadedEngine.js";
import {models} from "../../../../helpers/paths.js";

const ask = "Tell me a story about a cat.";
const greedy = {temperature: 0};

/** The copy workload: the model's own greedy story is in the prompt, and the same question asks for it again. */
async function copyTurns(engine: LlamaEngine): Promise<ChatTurn[]> {
    const story = await engine.generate({turns: [{role: "user", text: ask}], maxOutputTokens: 96, sampling: greedy});
    return [{role: "user", text: ask}, {role: "model", parts: [{type: "text", text: story.text}]}, {role: "user", text: ask}];
}

/** Each request's greedy result, generated without and then with prompt lookup on fresh engines. */
async function bothWays(requests: (turns: ChatTurn[]) => GenerationRequest[], predicted: SpeculativeSetting = {kind: "lookup"}) {
    const run = (speculative: SpeculativeSetting) => withEngine(models.chatml, async (engine) => {
        const turns = await copyTurns(engine);
        const results = [];
        for (const request of requests(turns))
            results.push(await engine.generate(request));
        return {results, stats: engine.stats().speculative!};
    }, {speculative});
    return {off: await run({kind: "off"}), lookup: await run(predicted)};
}

describe("speculative decoding by prompt lookup (real node-llama-cpp)", () => {
    it("greedy answers are token for token the same, with predictions drafted and accepted on the copy workload", async () => {
        const {off, lookup} = await bothWays((turns) => [
            {turns, maxOutputTokens: 96, sampling: greedy},
            // A stop sequence and a token limit end it as they do without prediction.
            {turns, maxOutputTokens: 96, sampling: greedy, stopSequences: ["."]},
            {turns, maxOutputTokens: 7, sampling: greedy}
        ]);
        for (const [index, result] of lookup.results.entries()) {
            const plain = off.results[index]!;
            assert.equal(result.text, plain.text, `request ${index}`);
            assert.equal(result.stopReason, plain.stopReason, `request ${index}`);
            assert.equal(result.stopSequence, plain.stopSequence, `request ${index}`);
            assert.equal(result.usage.outputTokens, plain.usage.outputTokens,
                `request ${index}: output tokens count the answer, not the predictions`);
            assert.equal(result.usage.cachedTokens, plain.usage.cachedTokens, `request ${index}`);
        }
        const [copy] = lookup.results;
        assert.ok(copy!.usage.draftedTokens! > 0 && copy!.usage.acceptedTokens! > 0, JSON.stringify(copy!.usage));
        assert.ok(copy!.usage.acceptedTokens! <= copy!.usage.draftedTokens!);
        assert.equal(off.results[0]!.usage.draftedTokens, undefined, "off reports nothing");
        assert.deepEqual([off.stats.kind, lookup.stats.kind], ["off", "lookup"]);
        assert.ok(lookup.stats.acceptedTokens >= copy!.usage.acceptedTokens!, "the engine's totals add up every generation");
    });

    it("a JSON schema answer and a forced call are the same with prediction", async () => {
        const schema = {
            type: "object", properties: {title: {type: "string", maxLength: 40}}, required: ["title"], additionalProperties: false
        };
        const weather = {name: "get_weather", description: "The weather of a city", parameters: {
            type: "object", properties: {city: {type: "string", enum: ["Paris", "Oslo"]}}, required: ["city"], additionalProperties: false
        }};
        const {off, lookup} = await bothWays((turns) => [
            {turns, maxOutputTokens: 48, sampling: greedy, json: {type: "schema", schema}},
            {turns, maxOutputTokens: 48, sampling: greedy, tools: [weather], toolMode: {type: "required"}}
        ]);
        for (const [index, result] of lookup.results.entries()) {
            assert.equal(result.text, off.results[index]!.text, `request ${index}`);
            assert.deepEqual(result.calls, off.results[index]!.calls, `request ${index}`);
        }
        assert.equal(lookup.results[1]!.calls[0]?.name, "get_weather");
    });

    it("with a draft model (the model itself: every prediction right but for its timing), greedy answers are the same", async () => {
        const {off, lookup: drafted} = await bothWays((turns) => [{turns, maxOutputTokens: 64, sampling: greedy}],
            {kind: "draft", modelPath: models.chatml});
        assert.equal(drafted.results[0]!.text, off.results[0]!.text);
        assert.equal(drafted.results[0]!.usage.outputTokens, off.results[0]!.usage.outputTokens);
        assert.ok(drafted.results[0]!.usage.acceptedTokens! > 0, JSON.stringify(drafted.results[0]!.usage));
        assert.equal(drafted.stats.kind, "draft");
    });
});
