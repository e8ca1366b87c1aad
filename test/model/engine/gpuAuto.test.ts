import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {backendDefaults, defaultGpu} from "../../../src/engine/engineDefaults.js";
import {LlamaEngine} from "../../../src/engine/llama/LlamaEngine.js";
import {runsOnCpuOnly} from "../../../src/engine/models/backendChoice.js";
import type {GpuChoice, ModelInfo} from "../../../src/engine/types.js";
import {defaultConfig} from "../../../src/host/config.js";
import {models} from "../../helpers/paths.js";
import {startTestServer} from "../../helpers/testServer.js";

/** What a load reports of its device and context with `gpu`, on this machine. */
async function loadWith(gpu: GpuChoice): Promise<ModelInfo> {
    const engine = new LlamaEngine({threads: 1, contextSize: 1024, parallel: 2, gpu});
    try {
        return await engine.load(models.chatml);
    } finally {
        await engine.dispose();
    }
}

describe("gpu auto, the default, on a machine without a GPU (this one, CI): the CPU, exactly as gpu false", () => {
    it("is the default of the CLI, the editor and the engine", () => {
        assert.equal(defaultConfig().gpu, "auto");
        assert.equal(defaultGpu, "auto");
        assert.equal(runsOnCpuOnly("auto"), true, "this checkout carries no GPU build");
    });

    it("loads stories260K on the CPU with the CPU's batch and flash attention, the same as gpu false", async () => {
        const auto = await loadWith("auto");
        const cpu = await loadWith(false);
        assert.deepEqual(auto.backend, {name: "cpu", devices: [], gpuLayers: 0, totalLayers: 6, vramBytes: 0},
            "stories260K: 5 blocks and the output layer, none on a GPU");
        assert.equal(auto.batchSize, backendDefaults("cpu").batchSize);
        assert.equal(auto.flashAttention, false);
        const settings = (info: ModelInfo) => [info.backend, info.batchSize, info.flashAttention, info.contextSize, info.sequences];
        assert.deepEqual(settings(auto), settings(cpu));
    });

    it("says so in the load line and in /v1/status", async () => {
        const lines: string[] = [];
        const server = await startTestServer({log: (line) => lines.push(line)});
        try {
            assert.match(lines.join("\n"), /^model: loaded stories260K on CPU \(context 2048 /m);
            const status = await (await server.fetch("/v1/status")).json() as {model: Record<string, unknown>};
            const {backend, gpu_devices, gpu_layers, total_layers, vram_bytes} = status.model;
            assert.deepEqual([backend, gpu_devices, gpu_layers, total_layers, vram_bytes], ["cpu", [], 0, 6, 0]);
            assert.equal(status.model.flash_attention, false);
            assert.equal(status.model.batch_size, 128);
        } finally {
            await server.close();
        }
    });
});
