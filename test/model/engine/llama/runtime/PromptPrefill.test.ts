import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {EngineError} from "../../../../../src/engine/EngineError.js";
import {LlamaEngine} from "../../../../../src/engine/llama/LlamaEngine.js";
import type {ChatTurn, PromptProgress} from "../../../../../src/engine/types.js";
import {models} from "../../../../helpers/paths.js";
import {syntheticModel} from "../../../../helpers/syntheticModel.js";

/** A prompt of roughly `words` words (stories260K's vocabulary makes most words one or two tokens). */
function longTurns(words: number, seed = "Lily"): ChatTurn[] {
    const text = Array.from({length: words}, (_, index) => `${seed}${index % 7 === 0 ? "." : ""} played`).join(" ");
    return [{role: "system", text: "You tell stories."}, {role: "user", text}];
}

describe("prompt evaluation in abortable steps (real node-llama-cpp)", () => {
    it("evaluates a long prompt step by step, and LlamaChat then evaluates only its last token", async () => {
        const engine = new LlamaEngine({threads: 1, contextSize: 2048, parallel: 2});
        await engine.load(models.chatml);
        try {
            const turns = longTurns(500);
            const progress: PromptProgress[] = [];
            const first = await engine.generate({
                turns, maxOutputTokens: 4, sampling: {temperature: 0}, onPromptProgress: (step) => progress.push(step)
            });
            assert.ok(first.usage.inputTokens > 1000, `a long prompt (${first.usage.inputTokens} tokens)`);
            assert.ok(progress.length > 3, `several steps (${progress.length} progress reports)`);
            assert.deepEqual(progress.map((step) => step.total), progress.map(() => first.usage.inputTokens));
            for (let index = 1; index < progress.length; index++)
                assert.ok(progress[index]!.evaluated > progress[index - 1]!.evaluated, "each step adds tokens");
            // After the first step of 64, every step ends on a multiple of the batch (128), as node-llama-cpp's own
            // batches do: llama.cpp computes attention up to the next multiple of 256 cells (alignedStepTokens).
            const stepEnds = progress.slice(2, -1).map((step) => step.evaluated);
            assert.ok(stepEnds.length > 2 && stepEnds.every((end) => end % 128 === 0),
                `steps end on multiples of 128: ${stepEnds.join(", ")}`);
            // The last step is left to generation, which evaluates it with the first output token; then the prompt is all in.
            assert.equal(progress.at(-1)!.evaluated, first.usage.inputTokens, "the prompt is reported all in at the first token");
            const stepped = progress.at(-2)!;
            assert.ok(stepped.evaluated <= first.usage.inputTokens - 1 && stepped.evaluated >= first.usage.inputTokens - 512,
                `the steps stop at most a batch short of the end (${stepped.evaluated} of ${first.usage.inputTokens})`);
            // The meter counts every prompt evaluation, the steps' and LlamaChat's: had LlamaChat rendered other tokens
            // and evaluated them again, fewer would count as cached than the steps reused.
            assert.equal(first.usage.cachedTokens, progress[0]!.reused);
            assert.equal(first.usage.cachedTokens, 0);

            // The next turn continues the same history: its prefix is reused, and only the new tokens are evaluated.
            const next: ChatTurn[] = [
                ...turns, {role: "model", parts: [{type: "text", text: first.text}]}, {role: "user", text: "And then?"}
            ];
            const continued: PromptProgress[] = [];
            const second = await engine.generate({
                turns: next, maxOutputTokens: 4, sampling: {temperature: 0}, onPromptProgress: (step) => continued.push(step)
            });
            assert.ok(continued[0]!.reused > first.usage.inputTokens - 8, `the first turn's tokens are reused (${continued[0]!.reused})`);
            assert.equal(second.usage.cachedTokens, continued[0]!.reused);
        } finally {
            await engine.dispose();
        }
    });

    it("frees the sequence within 2 s when aborted mid-prompt on a full-size model, and generates again afterwards", async () => {
        const engine = new LlamaEngine({threads: 1, contextSize: 8192, parallel: 1});
        await engine.load(await syntheticModel());
        try {
            const controller = new AbortController();
            let lastProgress: PromptProgress | undefined;
            const running = engine.generate({
                turns: longTurns(1000),
                maxOutputTokens: 4,
                signal: controller.signal,
                onPromptProgress: (step) => {
                    lastProgress = step;
                    // Abort once evaluation is well under way (the first steps have measured the rate).
                    if (step.evaluated > 200 && !controller.signal.aborted)
                        controller.abort();
                }
            });
            const outcome = await running.then(() => "finished", (error: unknown) => error);
            const abortedAt = performance.now();
            assert.ok(outcome instanceof EngineError && outcome.kind === "aborted", `aborted, got ${String(outcome)}`);
            assert.ok(lastProgress != null && lastProgress.evaluated < lastProgress.total - 1, "stopped before the end of the prompt");
            assert.equal(engine.stats().sequencesBusy, 0, "the sequence is free");

            // The abort is checked between steps of ~0.5 s: measure the delay from abort() to the rejection directly.
            const second = new AbortController();
            let abortCalledAt = 0;
            const again = engine.generate({
                turns: longTurns(1000, "Tom"),
                maxOutputTokens: 4,
                signal: second.signal,
                onPromptProgress: (step) => {
                    if (step.evaluated > 300 && !second.signal.aborted) {
                        abortCalledAt = performance.now();
                        second.abort();
                    }
                }
            });
            await assert.rejects(again, (error: unknown) => error instanceof EngineError && error.kind === "aborted");
            const delayMs = performance.now() - abortCalledAt;
            assert.ok(delayMs < 2000, `rejected ${delayMs.toFixed(0)} ms after abort()`);
            assert.ok(abortedAt > 0);

            const after = await engine.generate({turns: [{role: "user", text: "Hello"}], maxOutputTokens: 2, sampling: {temperature: 0}});
            assert.equal(after.usage.outputTokens, 2);
        } finally {
            await engine.dispose();
        }
    });
});
