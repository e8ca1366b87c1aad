import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {backendLabel, describeBackend, partialOffloadNote} from "../../src/host/backendText.js";
import {modelLoadLines} from "../../src/host/modelLoadLines.js";
import type {ModelBackend} from "../../src/engine/types.js";

const cpu: ModelBackend = {name: "cpu", devices: [], gpuLayers: 0, totalLayers: 6, vramBytes: 0};
const whole: ModelBackend = {name: "cuda", devices: ["NVIDIA GeForce RTX 4090"], gpuLayers: 33, totalLayers: 33, vramBytes: 6.1 * 2 ** 30};
const partly: ModelBackend = {name: "vulkan", devices: ["AMD Radeon RX 6600"], gpuLayers: 24, totalLayers: 33, vramBytes: 6.1 * 2 ** 30};

describe("where a local model computes, in words", () => {
    it("names the backend, its devices, its layers on the GPU and the VRAM they take", () => {
        assert.equal(describeBackend(cpu), "CPU");
        assert.equal(describeBackend(whole), "CUDA (NVIDIA GeForce RTX 4090): 33/33 layers, 6.1 GiB VRAM");
        assert.equal(describeBackend({...partly, devices: []}), "Vulkan: 24/33 layers, 6.1 GiB VRAM");
        assert.equal(backendLabel(cpu), "CPU");
        assert.equal(backendLabel(partly), "Vulkan 24/33 layers");
    });

    it("a model only part of which fits on the GPU says so in one line, with what would fit it whole", () => {
        assert.equal(partialOffloadNote({backend: partly, contextSize: 32768}),
            "24/33 layers on the GPU (Vulkan, 6.1 GiB VRAM): the rest runs on the CPU; a smaller quantization or --context-size 16384 "
            + "may fit it whole");
        assert.match(partialOffloadNote({backend: partly, contextSize: 2048}, "localResponses.contextSize")!,
            /the rest runs on the CPU; a smaller quantization may fit it whole$/, "no smaller context to offer");
        assert.match(partialOffloadNote({backend: partly, contextSize: 12000}, "localResponses.contextSize")!,
            /or localResponses\.contextSize 4096 may fit it whole$/);
    });

    it("says nothing of a model wholly on the GPU, on the CPU, or of no backend (an upstream)", () => {
        assert.equal(partialOffloadNote({backend: whole, contextSize: 8192}), null);
        assert.equal(partialOffloadNote({backend: cpu, contextSize: 8192}), null);
        assert.equal(partialOffloadNote({contextSize: 8192}), null);
    });
});

describe("the log lines of a model just loaded", () => {
    const info = {id: "coder", path: "/m/coder.gguf", contextSize: 32768, sequences: 1, trainContextSize: 32768, chatWrapper: "ChatML"};

    it("say where it computes, and warn of a model partly on the GPU with what to change", () => {
        assert.deepEqual(modelLoadLines({...info, backend: cpu}), ["model: loaded coder on CPU (context 32768 × 1 sequences, ChatML)"]);
        assert.deepEqual(modelLoadLines({...info, backend: partly}), [
            "model: loaded coder on Vulkan (AMD Radeon RX 6600): 24/33 layers, 6.1 GiB VRAM (context 32768 × 1 sequences, ChatML)",
            "model: warning: 24/33 layers on the GPU (Vulkan, 6.1 GiB VRAM): the rest runs on the CPU; a smaller quantization or "
                + "--context-size 16384 may fit it whole"
        ]);
        assert.deepEqual(modelLoadLines(info), ["model: loaded coder (context 32768 × 1 sequences, ChatML)"],
            "an upstream says no backend");
    });
});
