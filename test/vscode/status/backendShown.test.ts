import assert from "node:assert/strict";
import {test} from "node:test";
import type {ModelBackend, ModelInfo} from "../../../src/engine/types.js";
import type {ControllerState} from "../../../src/vscode/controller/controllerState.js";
import {libraryModelRows} from "../../../src/vscode/sidebar/libraryModelRows.js";
import {modelRows} from "../../../src/vscode/sidebar/modelRows.js";
import {serverRows} from "../../../src/vscode/sidebar/serverRows.js";
import {backendNote, describeEngine} from "../../../src/vscode/status/engineDescription.js";
import {formatStatus, type StatusModel} from "../../../src/vscode/status/statusView.js";
import {libraryEntry} from "../../helpers/libraryModels.js";

const cpu: ModelBackend = {name: "cpu", devices: [], gpuLayers: 0, totalLayers: 6, vramBytes: 0};
const partly: ModelBackend = {name: "vulkan", devices: ["AMD Radeon RX 6600"], gpuLayers: 24, totalLayers: 33, vramBytes: 6.1 * 2 ** 30};
const model = (backend: ModelBackend): ModelInfo => ({
    id: "coder", path: "/m/coder.gguf", contextSize: 32768, sequences: 1, trainContextSize: 32768, chatWrapper: "ChatML", backend
});

test("the status tooltip says where the local model computes, and a model partly on the GPU what would fit it whole", () => {
    assert.equal(describeEngine("local", model(cpu)), "local (this machine) · CPU");
    assert.equal(describeEngine("local", model(partly)), "local (this machine) · Vulkan (AMD Radeon RX 6600): 24/33 layers, 6.1 GiB VRAM");
    assert.deepEqual(backendNote(model(cpu)), {});
    const note = backendNote(model(partly));
    assert.match(note.backendNote!, /^24\/33 layers on the GPU \(Vulkan, 6\.1 GiB VRAM\): the rest runs on the CPU; .*localResponses\.contextSize 16384/);
    const status: StatusModel = {
        server: "listening", engine: "ready", modelName: "coder", loadProgress: null, active: 0, tokensPerSecond: 0, endpoint: null,
        totals: {inputTokens: 0, outputTokens: 0, cachedTokens: 0, generations: 0}, activeJobs: null, queueDepth: 0,
        answeredBy: describeEngine("local", model(partly)), ...note
    };
    const tooltip = formatStatus(status).tooltip;
    assert.match(tooltip, /^Engine: local \(this machine\) · Vulkan \(AMD Radeon RX 6600\): 24\/33 layers, 6\.1 GiB VRAM$/m);
    assert.match(tooltip, /^GPU: 24\/33 layers on the GPU/m);
    assert.doesNotMatch(formatStatus({...status, backendNote: undefined}).tooltip, /^GPU:/m);
});

test("the sidebar: the Server view's engine row, the loaded model's row, a library model's row", () => {
    const state = (backend: ModelBackend): ControllerState => ({
        server: "listening", engine: "ready", pendingModelPath: null, loadProgress: null, endpoint: null, lastError: null,
        engineKind: "local", upstreamModel: null, library: null, model: model(backend)
    });
    const engineRow = (backend: ModelBackend) => serverRows({
        state: state(backend), engine: null, threads: {count: 1, isDefault: true}, vscodeChat: "on",
        totals: {inputTokens: 0, outputTokens: 0, cachedTokens: 0, generations: 0}
    }).find((row) => row.id === "server.engine")!;
    assert.deepEqual([engineRow(cpu).description, engineRow(cpu).icon, engineRow(cpu).tooltip],
        ["local (this machine) · CPU", "vm", undefined]);
    assert.equal(engineRow(partly).icon, "warning");
    assert.match(engineRow(partly).tooltip!, /the rest runs on the CPU/);

    const [loaded] = modelRows({
        recent: ["/m/coder.gguf"], downloaded: [], loadedPath: "/m/coder.gguf", loadedBackend: partly, loadingPath: null
    });
    assert.equal(loaded!.description, "loaded on Vulkan 24/33 layers · recent");
    assert.equal(loaded!.tooltip, "/m/coder.gguf\non Vulkan (AMD Radeon RX 6600): 24/33 layers, 6.1 GiB VRAM");

    const [onGpu, onCpu] = libraryModelRows([
        libraryEntry("coder", {status: "loaded", info: model(partly)}), libraryEntry("small", {status: "loaded", info: model(cpu)})
    ]);
    assert.equal(onGpu!.description, "loaded · 2.00 GiB · Vulkan 24/33 layers");
    assert.match(onGpu!.tooltip!, /\non Vulkan \(AMD Radeon RX 6600\): 24\/33 layers, 6\.1 GiB VRAM\n24\/33 layers on the GPU .*its preset's contextSize 16384/);
    assert.equal(onCpu!.description, "loaded · 2.00 GiB · CPU");
});
