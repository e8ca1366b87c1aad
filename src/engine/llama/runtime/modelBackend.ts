import type {Llama, LlamaContext, LlamaModel} from "node-llama-cpp";
import {backendDefaults, type BackendDefaults} from "../../engineDefaults.js";
import type {Backend} from "../../models/prebuiltBinaries.js";
import type {ModelBackend} from "../../types.js";

/**
 * The backend a loaded model computes on: its build's GPU where node-llama-cpp's fit put at least one layer there, else
 * the CPU (the CPU build; the Metal build with `gpu: false`; a model no layer of which fits the free VRAM).
 */
export function runningBackend(llama: Pick<Llama, "gpu">, model: Pick<LlamaModel, "gpuLayers">): Backend {
    return llama.gpu === false || model.gpuLayers === 0 ? "cpu" : llama.gpu;
}

/**
 * The context's batch and flash attention: what was set (`--batch-size`, `--flash-attention`), else the backend's
 * (`backendDefaults`); a batch never wider than the whole cache (`tokens`: context × sequences).
 */
export function contextSettings(backend: Backend, set: {batchSize?: number, flashAttention?: boolean},
    tokens: number): BackendDefaults {
    const defaults = backendDefaults(backend);
    return {
        batchSize: set.batchSize ?? Math.min(defaults.batchSize, tokens),
        flashAttention: set.flashAttention ?? defaults.flashAttention
    };
}

/**
 * What `ModelInfo.backend` says of a loaded model. The VRAM is node-llama-cpp's estimate for its layers on the GPU and
 * its context, not the device's used memory before and after: other processes (and the other models of a library)
 * change that at any moment.
 */
export async function describeLoadedBackend(llama: Llama, model: LlamaModel, context: LlamaContext): Promise<ModelBackend> {
    const name = runningBackend(llama, model);
    const totalLayers = model.fileInsights.totalLayers;
    if (name === "cpu")
        return {name, devices: [], gpuLayers: 0, totalLayers, vramBytes: 0};
    const [devices, weights, cache] = await Promise.all([
        llama.getGpuDeviceNames(),
        model.fileInsights.estimateModelResourceRequirementsV2({gpuLayers: model.gpuLayers}),
        model.fileInsights.estimateContextResourceRequirementsV2({
            contextSize: context.contextSize, sequences: context.totalSequences, batchSize: context.batchSize,
            modelGpuLayers: model.gpuLayers, flashAttention: context.flashAttention
        })
    ]);
    return {name, devices, gpuLayers: model.gpuLayers, totalLayers, vramBytes: weights.gpuVram + cache.gpuVram};
}
