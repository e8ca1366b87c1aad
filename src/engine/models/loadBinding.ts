import type {Llama, LlamaOptions} from "node-llama-cpp";
import {autoLlamaGpu, installedBackends} from "./backendChoice.js";
import {useInstalledGpuBuilds} from "./gpuBuilds/installedGpuBuilds.js";
import {describeGpuBackend} from "./gpuBuilds/gpuBackendLine.js";
import {installedBuildsLackingLibraries} from "./gpuBuilds/missingLibraries.js";
import {chooseLlamaBinary, missingBinaryHint, type GpuSetting} from "./prebuiltBinaries.js";

/**
 * node-llama-cpp is ESM-only with top-level await: the CommonJS bundles (extension, CLI) must reach it
 * through a real dynamic `import()`, which esbuild keeps as is when the package is external.
 */
export type NodeLlamaCpp = typeof import("node-llama-cpp");

let binding: Promise<NodeLlamaCpp> | undefined;

export function loadNodeLlamaCpp(): Promise<NodeLlamaCpp> {
    binding ??= import("node-llama-cpp");
    return binding;
}

/**
 * What to do where the platform's own build is missing: it is added at install time (scripts/install-platform-packages.mjs,
 * the postinstall of a checkout and of the CLI package), which an install with --ignore-scripts skips.
 */
const installHint = " It is added at install time: run `node scripts/install-platform-packages.mjs` in the local-responses folder"
    + " (or install again without --ignore-scripts).";

/**
 * node-llama-cpp's Llama for the `gpu` setting, from the prebuilt binary package of this platform that is installed
 * beside it (one per VSIX; see prebuiltBinaries.ts). Never builds or downloads: a missing build is a load error that
 * says which VSIX or setting would work.
 */
export async function loadLlama(binding: NodeLlamaCpp, gpu: GpuSetting, options: Omit<LlamaOptions, "gpu" | "build">,
    platform: string = process.platform, arch: string = process.arch): Promise<Llama> {
    const choice = chooseLlamaBinary(platform, arch, gpu);
    if (!choice.ok)
        throw new Error(`gpu ${String(gpu)}: ${choice.reason}`);
    // GPU builds fetched by `local-responses gpu install` live outside node_modules (see installedGpuBuilds.ts); the
    // CPU-only plan needs none of them.
    if (choice.plan.llamaGpu !== false)
        useInstalledGpuBuilds();
    try {
        // "auto" asks only for the builds installed here (see backendChoice.ts).
        const llamaGpu = gpu === "auto" ? autoLlamaGpu(platform, arch, installedBackends(platform, arch)) : choice.plan.llamaGpu;
        return await binding.getLlama({...options, gpu: llamaGpu, build: "never"});
    } catch (error) {
        // A GPU build that is installed but cannot load, for want of its runtime libraries: say which, in one line.
        const lacking = gpu === "cuda" || gpu === "vulkan" ? await installedBuildsLackingLibraries(process.env, gpu) : [];
        if (lacking.length > 0)
            throw new Error(`gpu ${gpu}: ${lacking.join(" ")}`, {cause: error});
        if (error instanceof binding.NoBinaryFoundError)
            throw new Error(`No usable node-llama-cpp binary for gpu ${String(gpu)} on ${platform}-${arch} (looked `
                + `for ${choice.plan.packages.join(", ")}).${missingBinaryHint(platform, arch, gpu) || installHint}`, {cause: error});
        throw error;
    }
}

/**
 * The backend a model runs on, the same in the server's process, a model process and its spare: the Llama for `gpu`
 * (see `loadLlama`), logging errors only, its thread pool sized for `maxThreads` (see `backendThreads`).
 */
export async function loadEngineBackend(gpu: GpuSetting, maxThreads: number): Promise<Llama> {
    const binding = await loadNodeLlamaCpp();
    const llama = await loadLlama(binding, gpu, {logLevel: binding.LlamaLogLevel.error, maxThreads});
    // One line on stderr (a model process's stderr reaches the server's log): which backend, or why not the GPU asked for.
    const line = await describeGpuBackend(llama, gpu);
    if (line != null)
        process.stderr.write(`${line}\n`);
    return llama;
}

/**
 * `loadModel`'s `gpuLayers` for the `gpu` setting: 0 where it asks for the CPU only (how the Metal build, the only
 * one on Apple silicon, honours `false`), else node-llama-cpp's own fit.
 */
export function modelGpuLayers(gpu: GpuSetting, platform: string = process.platform, arch: string = process.arch): 0 | undefined {
    const choice = chooseLlamaBinary(platform, arch, gpu);
    return choice.ok ? choice.plan.gpuLayers : undefined;
}
