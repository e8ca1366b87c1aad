import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {contextSettings, runningBackend} from "../../../../src/engine/llama/runtime/modelBackend.js";

describe("the backend a loaded model runs on, and its context's settings", () => {
    it("is the CPU where no layer went to the GPU, whatever the build", () => {
        assert.equal(runningBackend({gpu: false}, {gpuLayers: 0}), "cpu");
        assert.equal(runningBackend({gpu: "metal"}, {gpuLayers: 0}), "cpu", "the Metal build with gpu false");
        assert.equal(runningBackend({gpu: "cuda"}, {gpuLayers: 0}), "cpu", "no layer fitted the free VRAM");
        assert.equal(runningBackend({gpu: "vulkan"}, {gpuLayers: 12}), "vulkan");
        assert.equal(runningBackend({gpu: "metal"}, {gpuLayers: 33}), "metal");
    });

    it("the CPU: 128-token batches, flash attention off; a GPU: node-llama-cpp's 512 and auto", () => {
        assert.deepEqual(contextSettings("cpu", {}, 4 * 8192), {batchSize: 128, flashAttention: false});
        assert.deepEqual(contextSettings("cuda", {}, 4 * 8192), {batchSize: 512, flashAttention: "auto"});
        assert.deepEqual(contextSettings("metal", {}, 256), {batchSize: 256, flashAttention: "auto"}, "never wider than the cache");
    });

    it("what was set wins on every backend", () => {
        assert.deepEqual(contextSettings("cpu", {batchSize: 64, flashAttention: true}, 8192), {batchSize: 64, flashAttention: true});
        assert.deepEqual(contextSettings("vulkan", {batchSize: 1024, flashAttention: false}, 8192),
            {batchSize: 1024, flashAttention: false});
    });
});
