import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, describe, it} from "node:test";
import {LlamaEngine} from "../../../../../src/engine/llama/LlamaEngine.js";
import type {KeyCacheType} from "../../../../../src/engine/keyCacheType.js";
import type {ChatTurn, ModelInfo} from "../../../../../src/engine/types.js";
import {models} from "../../../../helpers/paths.js";
import {syntheticModel} from "../../../../helpers/syntheticModel.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-key-cache-"));
const instructions = Array.from({length: 60}, (_, index) => `Rule ${index}: keep the tests green.`).join(" ");
const turns: ChatTurn[] = [{role: "system", text: instructions}, {role: "user", text: "What is rule 7?"}];

/** One engine's life on `model` with `cacheTypeK`, its prompt cache in `folder`: the model info and what the prompt reused. */
async function run(model: string, cacheTypeK: KeyCacheType,
    folder: string): Promise<{info: ModelInfo, reused: number, input: number, text: string}> {
    const engine = new LlamaEngine({threads: 1, contextSize: 2048, parallel: 1, cacheTypeK, promptCache: {folder, minTokens: 256}});
    const info = await engine.load(model);
    try {
        let reused = -1;
        const result = await engine.generate({turns, maxOutputTokens: 4, sampling: {temperature: 0}, keepPromptOnDisk: true,
            onPromptProgress: (progress) => {
                if (reused < 0)
                    reused = progress.reused;
            }});
        return {info, reused, input: result.usage.inputTokens, text: result.text};
    } finally {
        await engine.dispose();
    }
}

const stateBytes = (folder: string) => fs.readdirSync(folder).filter((name) => name.endsWith(".state"))
    .reduce((sum, name) => sum + fs.statSync(path.join(folder, name)).size, 0);

describe("q8_0 KV cache keys (real node-llama-cpp)", () => {
    after(() => fs.rmSync(root, {recursive: true, force: true}));

    it("the synthetic SmolLM2-135M (64-value heads) takes them: llama.cpp stores 8-bit keys, and their saved states load only into "
        + "q8_0 keys", async () => {
        const model = await syntheticModel();
        const f16Folder = path.join(root, "f16");
        const q8Folder = path.join(root, "q8_0");
        const f16 = await run(model, "f16", f16Folder);
        const q8 = await run(model, "q8_0", q8Folder);
        assert.deepEqual(f16.info.keyCache, {type: "f16", note: null});
        assert.deepEqual(q8.info.keyCache, {type: "q8_0", note: null});
        assert.ok(q8.input > 300 && q8.input === f16.input, `the same long prompt (${q8.input} tokens)`);
        // The state holds the prompt's keys and values: f16 keys take 2 bytes a value, q8_0 keys 34 bytes a 32-value
        // block, the values 2 bytes either way, so a q8_0 state is ~(34/32 + 2) / 4 ≈ 0.77 the size.
        const ratio = stateBytes(q8Folder) / stateBytes(f16Folder);
        assert.ok(ratio > 0.7 && ratio < 0.85, `q8_0 keys are stored (state size ${ratio.toFixed(3)} of f16's)`);

        // A state is loaded only into a context with the key type that wrote it.
        assert.equal((await run(model, "f16", q8Folder)).reused, 0, "f16 keys never load a q8_0 state");
        const restored = await run(model, "q8_0", q8Folder);
        assert.ok(restored.reused > q8.input - 40, `q8_0 keys load their own state (${restored.reused} of ${restored.input})`);
    });

    it("stories260K (8-value heads) keeps f16 keys, says why, and answers as it does with f16", async () => {
        const folder = path.join(root, "stories");
        const asked = await run(models.chatml, "q8_0", folder);
        assert.equal(asked.info.keyCache?.type, "f16");
        assert.match(asked.info.keyCache?.note ?? "", /multiple of 32 values; this model's hold 8/);
        assert.equal(asked.text, (await run(models.chatml, "f16", path.join(root, "stories-f16"))).text);
    });
});
