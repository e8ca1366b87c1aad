import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, describe, it} from "node:test";
import {LlamaEngine} from "../../../../../src/engine/llama/LlamaEngine.js";
import type {ChatTurn, PromptProgress} from "../../../../../src/engine/types.js";
import {models} from "../../../../helpers/paths.js";

const folder = fs.mkdtempSync(path.join(os.tmpdir(), "lr-prompt-cache-"));
const instructions = "You are a coding agent. ".repeat(5) + Array.from({length: 80}, (_, index) => `Rule ${index}: keep the tests green.`)
    .join(" ");
const turn = (question: string): ChatTurn[] => [{role: "system", text: instructions}, {role: "user", text: question}];

/** One engine's life: load, generate once (recording prompt progress), dispose (which waits for a state being saved). */
async function run(model: string, question: string): Promise<{reused: number, cached: number, input: number}> {
    const engine = new LlamaEngine({threads: 1, contextSize: 4096, parallel: 1, promptCache: {folder, minTokens: 256}});
    await engine.load(model);
    try {
        let first: PromptProgress | undefined;
        const result = await engine.generate({
            turns: turn(question), maxOutputTokens: 4, sampling: {temperature: 0}, keepPromptOnDisk: true,
            onPromptProgress: (progress) => first ??= progress
        });
        return {reused: first!.reused, cached: result.usage.cachedTokens, input: result.usage.inputTokens};
    } finally {
        await engine.dispose();
    }
}

describe("prompt cache across restarts (real node-llama-cpp, saveStateToFile / loadStateFromFile)", () => {
    after(() => fs.rmSync(folder, {recursive: true, force: true}));

    it("a restarted engine loads the saved prompt instead of evaluating it, and counts it as cached", async () => {
        const cold = await run(models.chatml, "What is rule 7?");
        assert.ok(cold.input > 1000, `a long prompt (${cold.input} tokens)`);
        assert.equal(cold.reused, 0);
        assert.ok(fs.readdirSync(folder).some((name) => name.endsWith(".state")), "the state was saved");

        const restarted = await run(models.chatml, "And what is rule 12?");
        assert.ok(restarted.reused > cold.input - 40, `the shared prefix came from disk (${restarted.reused} of ${restarted.input})`);
        assert.equal(restarted.cached, restarted.reused, "restored tokens count as cached");
    });

    it("never loads a state into another model (the same prompt, a different model file)", async () => {
        const other = await run(models.qwen, "What is rule 7?");
        assert.equal(other.reused, 0);
        assert.equal(other.cached, 0);
    });

    it("ignores a truncated state file and evaluates cold", async () => {
        for (const name of fs.readdirSync(folder).filter((name) => name.endsWith(".state"))) {
            const file = path.join(folder, name);
            fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
        }
        const afterTruncation = await run(models.chatml, "What is rule 31?");
        assert.equal(afterTruncation.reused, 0);
    });
});
