import type {Llama} from "node-llama-cpp";
import type {GpuSetting} from "../prebuiltBinaries.js";
import {installedBuildsLackingLibraries} from "./missingLibraries.js";

/**
 * The line that says where models run once a GPU backend was asked for: `gpu: vulkan on llvmpipe (…)`, or, where the
 * GPU build loaded but sees no device (no driver, or a device filtered out), that the CPU runs it and why. Null for
 * `gpu: false`, which asks for nothing to report.
 */
export async function describeGpuBackend(llama: Llama, gpu: GpuSetting): Promise<string | null> {
    if (gpu === false)
        return null;
    if (llama.gpu === false) {
        const lacking = await installedBuildsLackingLibraries();
        const why = lacking.length > 0 ? ` Why: ${lacking.join(" ")}` : "";
        return `gpu ${String(gpu)}: no GPU build could run here; models run on the CPU.${why}`;
    }
    const devices = await llama.getGpuDeviceNames().catch(() => []);
    if (devices.length === 0)
        return `gpu ${String(gpu)}: the ${llama.gpu} build found no ${llama.gpu} device (no driver, or none visible: `
            + "GGML_VK_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES); models run on the CPU.";
    return `gpu ${String(gpu)}: ${llama.gpu} on ${devices.join(", ")}`;
}
