import fs from "node:fs";
import {createRequire} from "node:module";
import path from "node:path";
import {fileURLToPath} from "node:url";
import type {LlamaOptions} from "node-llama-cpp";
import {gpuBuildsFolderVariable, installedPackageFolder} from "./gpuBuilds/installedGpuBuilds.js";
import {chooseLlamaBinary, platformBinaries, type Backend, type GpuSetting} from "./prebuiltBinaries.js";

/**
 * Which backend `gpu: "auto"` runs on. node-llama-cpp's own "auto" tries, in order, every GPU backend whose driver this
 * machine has (CUDA where the NVIDIA driver and CUDA runtime are found, then Vulkan where its loader is), then the CPU.
 * Left to itself it also tries a backend whose build is not installed (the CPU-only VSIX on a desktop with Vulkan) and
 * prints "A prebuilt binary was not found" on the way to the CPU. So "auto" asks only for the builds installed here: with
 * none but the CPU's that is `gpu: false`, the very load `false` makes, and a machine without a GPU runs as it always did.
 */

/** The GPU backends whose builds node-llama-cpp tries under "auto", best first (its getBestComputeLayersAvailable). */
const autoOrder: readonly Exclude<Backend, "cpu">[] = ["metal", "cuda", "vulkan"];

/** The GPU backends "auto" tries, best first: those whose builds are installed (Apple silicon has Metal alone). */
function autoCandidates(platform: string, arch: string, installed: readonly Backend[]): Exclude<Backend, "cpu">[] {
    const gpuBuilds = autoOrder.filter((backend) => installed.includes(backend));
    return platform === "darwin" && arch === "arm64" ? gpuBuilds.filter((backend) => backend === "metal") : gpuBuilds;
}

/** `getLlama`'s `gpu` option for "auto", given the backends whose builds are installed here. */
export function autoLlamaGpu(platform: string, arch: string, installed: readonly Backend[]): LlamaOptions["gpu"] {
    const candidates = autoCandidates(platform, arch, installed);
    if (candidates.length === 0)
        return false;
    return {type: "auto", exclude: autoOrder.filter((backend) => !candidates.includes(backend))};
}

/** What decides the backend: the platform, the builds installed, the `gpu` setting, the GPU drivers the machine has. */
export type BackendFacts = {
    platform: string,
    arch: string,
    installed: readonly Backend[],
    /** GPU backends this machine can run (driver and runtime present; Metal on every Apple silicon Mac). */
    drivers: readonly Backend[],
    gpu: GpuSetting
};

/**
 * The backend a `gpu` setting runs on (before the model's layers are fitted: a model none of whose layers fit on the GPU
 * runs on the CPU), or why it cannot load. The same plan `loadLlama` hands node-llama-cpp, with its driver detection in
 * `drivers`: the table of test/engine/models/backendChoice.test.ts.
 */
export function expectedBackend(facts: BackendFacts): {ok: true, backend: Backend} | {ok: false, reason: string} {
    const choice = chooseLlamaBinary(facts.platform, facts.arch, facts.gpu);
    if (!choice.ok)
        return choice;
    if (facts.gpu === false)
        return {ok: true, backend: "cpu"};
    if (facts.gpu !== "auto") {
        if (!facts.installed.includes(facts.gpu))
            return {ok: false, reason: `the ${facts.gpu} build is not installed`};
        return facts.drivers.includes(facts.gpu) ? {ok: true, backend: facts.gpu} : {ok: false, reason: `no ${facts.gpu} driver`};
    }
    const runnable = autoCandidates(facts.platform, facts.arch, facts.installed).find((backend) => facts.drivers.includes(backend));
    if (runnable != null)
        return {ok: true, backend: runnable};
    return facts.installed.includes("cpu") ? {ok: true, backend: "cpu"} : {ok: false, reason: "no build this machine can run is installed"};
}

/** The backends whose prebuilt builds are installed beside node-llama-cpp on this platform (all of a backend's packages). */
export function installedBackends(platform: string = process.platform, arch: string = process.arch,
    isInstalled: (name: string) => boolean = packageInstalled): Backend[] {
    const entry = platformBinaries.find((candidate) => candidate.platform === platform && candidate.arch === arch);
    return Object.entries(entry?.packages ?? {}).filter(([, names]) => names.every(isInstalled)).map(([backend]) => backend as Backend);
}

/**
 * Whether a package resolves from here, as node-llama-cpp's own `import()` finds it (the same node_modules), or is a
 * GPU build `local-responses gpu install` put in the folder `LOCAL_RESPONSES_GPU_BUILDS` names (installedGpuBuilds.ts).
 */
function packageInstalled(name: string): boolean {
    const here = typeof __filename === "string" ? __filename : fileURLToPath(import.meta.url);
    const buildsFolder = process.env[gpuBuildsFolderVariable];
    const inBuildsFolder = buildsFolder != null && buildsFolder !== ""
        && fs.existsSync(path.join(installedPackageFolder(buildsFolder, name), "package.json"));
    if (inBuildsFolder)
        return true;
    try {
        createRequire(path.resolve(here)).resolve(name);
        return true;
    } catch {
        return false;
    }
}

/**
 * Whether `gpu` can only compute on the CPU here, known before anything loads: `false`, or "auto" with no GPU build
 * installed. The CLI refuses a model larger than the free memory then, as it always did on the CPU.
 */
export function runsOnCpuOnly(gpu: GpuSetting, platform: string = process.platform, arch: string = process.arch,
    installed: readonly Backend[] = installedBackends(platform, arch)): boolean {
    return gpu === false || (gpu === "auto" && autoLlamaGpu(platform, arch, installed) === false);
}
