import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {performance as nodePerformance} from "node:perf_hooks";
import type {LlamaEngine} from "../../../../../src/engine/llama/LlamaEngine.js";
import {withEngine} from "../../../../helpers/loadedEngine.js";
import {models} from "../../../../helpers/paths.js";
import {syntheticModel} from "../../../../helpers/syntheticModel.js";

const turns = [{role: "user" as const, text: "Tell me a long story."}];

/**
 * The event loop's utilization while `engine` generates about `tokens` tokens (after a warm-up answer). A random-weight
 * model may sample its end-of-turn token early on one seed: the first of a few seeds whose answer is long enough counts.
 */
async function utilizationGenerating(engine: LlamaEngine, tokens: number): Promise<number> {
    await engine.generate({turns, maxOutputTokens: 8, sampling: {temperature: 0}});
    const lengths: number[] = [];
    for (const seed of [7, 1, 2, 3, 4]) {
        const start = nodePerformance.eventLoopUtilization();
        const result = await engine.generate({turns, maxOutputTokens: tokens, sampling: {temperature: 1, seed}});
        const utilization = nodePerformance.eventLoopUtilization(start).utilization;
        if (result.usage.outputTokens > tokens / 2)
            return utilization;
        lengths.push(result.usage.outputTokens);
    }
    assert.fail(`no answer reached ${tokens / 2} tokens: ${lengths.join(", ")}`);
}

describe("the event loop polls while tokens come fast (real node-llama-cpp)", () => {
    it("stories260K (~0.4 ms a token): the loop stays busy through the answer, unless told never to poll", async () => {
        const polling = await withEngine(models.chatml, (engine) => utilizationGenerating(engine, 400));
        const sleeping = await withEngine(models.chatml, (engine) => utilizationGenerating(engine, 400), {busyPollBelowTokenMs: 0});
        // The window also holds the prompt and the first token, when nothing polls: 0.97 on a quiet machine, 0.89 in CI.
        assert.ok(polling > 0.8, `utilization polling: ${polling.toFixed(2)}`);
        assert.ok(sleeping < polling - 0.1,
            `utilization with --busy-poll-below-ms 0: ${sleeping.toFixed(2)} (polling: ${polling.toFixed(2)})`);
    });

    it("the synthetic full-size model (~10 ms a token): the loop sleeps between tokens", async () => {
        const utilization = await withEngine(await syntheticModel(), (engine) => utilizationGenerating(engine, 40));
        assert.ok(utilization < 0.5, `utilization: ${utilization.toFixed(2)}`);
    });
});
