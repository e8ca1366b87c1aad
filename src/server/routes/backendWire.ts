import type {ModelInfo} from "../../engine/types.js";

/** A local model's backend as `/v1/status` spells it (see ModelBackend); absent for upstream models. */
export type BackendWire = {
    backend?: string, gpu_devices?: readonly string[], gpu_layers?: number, total_layers?: number, vram_bytes?: number
};

export function backendWire(model: Pick<ModelInfo, "backend"> | null): BackendWire {
    const backend = model?.backend;
    return backend == null ? {}
        : {
            backend: backend.name, gpu_devices: backend.devices, gpu_layers: backend.gpuLayers, total_layers: backend.totalLayers,
            vram_bytes: backend.vramBytes
        };
}
