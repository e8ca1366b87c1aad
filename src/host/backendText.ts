import type {ModelBackend, ModelInfo} from "../engine/types.js";

const backendNames: Record<ModelBackend["name"], string> = {cpu: "CPU", metal: "Metal", cuda: "CUDA", vulkan: "Vulkan"};

function gib(bytes: number): string {
    return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}

/**
 * Where a local model computes, in words, for the load log line, the status tooltip and the sidebar:
 * `CPU`, `CUDA (NVIDIA GeForce RTX 4090): 33/33 layers, 6.1 GiB VRAM`.
 */
export function describeBackend(backend: ModelBackend): string {
    if (backend.name === "cpu")
        return "CPU";
    const devices = backend.devices.length > 0 ? ` (${backend.devices.join(", ")})` : "";
    return `${backendNames[backend.name]}${devices}: ${backend.gpuLayers}/${backend.totalLayers} layers, ${gib(backend.vramBytes)} VRAM`;
}

/** The short form, for a row's description: `CPU`, `CUDA 24/33 layers`. */
export function backendLabel(backend: ModelBackend): string {
    return backend.name === "cpu" ? "CPU" : `${backendNames[backend.name]} ${backend.gpuLayers}/${backend.totalLayers} layers`;
}

/**
 * One line for a model only part of which fits on the GPU (node-llama-cpp fits the layers to the free VRAM): what runs
 * where, and what would fit it whole. `contextSetting`: how the reader sets the context (the CLI's flag, the editor's
 * setting). Null when every layer is on the GPU, or none (the CPU backend).
 */
export function partialOffloadNote(info: Pick<ModelInfo, "backend" | "contextSize">,
    contextSetting = "--context-size"): string | null {
    const backend = info.backend;
    if (backend == null || backend.name === "cpu" || backend.gpuLayers >= backend.totalLayers)
        return null;
    // Half the context (a power of two), where that is still a usable context: the KV cache shrinks with it.
    const smallerContext = Math.max(2048, 2 ** Math.floor(Math.log2(info.contextSize / 2)));
    const remedy = smallerContext < info.contextSize ? `a smaller quantization or ${contextSetting} ${smallerContext}`
        : "a smaller quantization";
    return `${backend.gpuLayers}/${backend.totalLayers} layers on the GPU (${backendNames[backend.name]}, ${gib(backend.vramBytes)} `
        + `VRAM): the rest runs on the CPU; ${remedy} may fit it whole`;
}
