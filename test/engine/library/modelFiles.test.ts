import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, test} from "node:test";
import {modelIdOf, quantizationOf, scanModelsFolder} from "../../../src/engine/library/modelFiles.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-model-files-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

function file(relative: string, bytes = 10): void {
    fs.mkdirSync(path.dirname(path.join(root, relative)), {recursive: true});
    fs.writeFileSync(path.join(root, relative), Buffer.alloc(bytes));
}

test("a models folder: plain, split and per-folder models; projectors attached, not listed; other files ignored", async () => {
    file("Qwen3-Coder-30B-A3B-Instruct-Q4_K_M.gguf", 100);
    file("big-model-Q8_0-00001-of-00002.gguf", 70);
    file("big-model-Q8_0-00002-of-00002.gguf", 30);
    file("gemma-3-4b/gemma-3-4b-it-Q4_0.gguf", 40);
    file("gemma-3-4b/mmproj-model-f16.gguf", 5);
    file("notes.txt");
    file(".hidden.gguf");
    const found = await scanModelsFolder(root);
    assert.deepEqual(found.map((model) => [model.id, model.parts, model.bytes, model.quantization]), [
        ["big-model-Q8_0", 2, 100, "Q8_0"],
        ["gemma-3-4b-it-Q4_0", 1, 40, "Q4_0"],
        ["Qwen3-Coder-30B-A3B-Instruct-Q4_K_M", 1, 100, "Q4_K_M"]
    ]);
    assert.equal(found[0]!.path, path.join(root, "big-model-Q8_0-00001-of-00002.gguf"));
    assert.equal(found[1]!.projector, path.join(root, "gemma-3-4b/mmproj-model-f16.gguf"));
    assert.equal(found[2]!.projector, null);
});

test("ids and quantizations from names", () => {
    assert.equal(modelIdOf("/m/stories260K.gguf"), "stories260K");
    assert.equal(modelIdOf("x-00001-of-00003.gguf"), "x");
    assert.equal(quantizationOf("stories260K.gguf"), null);
    assert.equal(quantizationOf("gpt-oss-20b-MXFP4.gguf"), "MXFP4");
    assert.equal(quantizationOf("Llama-3.2-3B-Instruct-IQ4_XS.gguf"), "IQ4_XS");
    assert.equal(quantizationOf("model.bf16.gguf"), "BF16");
});
