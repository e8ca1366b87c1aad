import {execFile} from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import {promisify} from "node:util";
import {gpuBuildPackages, installedGpuBuildsIn, type GpuBuild} from "./installGpuBuild.js";
import {gpuBuildsFolderVariable, installedPackageFolder} from "./installedGpuBuilds.js";

/**
 * The shared libraries a build's binaries need that the system's loader cannot find (Linux, via `ldd`), e.g. the CUDA
 * runtime's libcudart.so.12 and libcublas.so.12, which node-llama-cpp's CUDA build does not carry. Said in one line
 * instead of a loader error. Empty where `ldd` is absent or not Linux: the load then says what failed itself.
 */
export async function missingSharedLibraries(packageFolders: readonly string[], platform: string = process.platform): Promise<string[]> {
    if (platform !== "linux")
        return [];
    const binaries: string[] = [];
    for (const folder of packageFolders)
        binaries.push(...await listBinaries(path.join(folder, "bins")));
    const missing = new Set<string>();
    for (const binary of binaries) {
        let output: string;
        try {
            output = (await promisify(execFile)("ldd", [binary])).stdout;
        } catch (error) {
            // ldd exits 1 when it lists missing libraries on some systems; its output is still the list.
            output = (error as {stdout?: string}).stdout ?? "";
        }
        for (const match of output.matchAll(/^\s*(\S+)\s+=>\s+not found/gm))
            missing.add(match[1]!);
    }
    // A library the build carries itself (its ggml backends) is found at load time through its own rpath.
    const carried = new Set(binaries.map((binary) => path.basename(binary)));
    return [...missing].filter((library) => !carried.has(library)).sort();
}

async function listBinaries(folder: string): Promise<string[]> {
    const entries = await fs.readdir(folder, {withFileTypes: true, recursive: true}).catch(() => []);
    return entries.filter((entry) => entry.isFile() && /\.(node|so(\.\d+)*)$/.test(entry.name))
        .map((entry) => path.join(entry.parentPath, entry.name));
}

/** One line naming what a build lacks, or null when nothing is missing. */
export function missingLibrariesLine(build: string, missing: readonly string[]): string | null {
    if (missing.length === 0)
        return null;
    const hint = build === "cuda" ? " (install the CUDA 12 runtime: cudart and cuBLAS, e.g. Debian's nvidia-cuda-toolkit)"
        : " (install the Vulkan loader and a driver, e.g. Debian's libvulkan1 and mesa-vulkan-drivers)";
    return `the ${build} build needs ${missing.join(", ")}, which this system does not have${hint}.`;
}

/**
 * For each GPU build installed in the folder `LOCAL_RESPONSES_GPU_BUILDS` names (the one `gpu install` fills), the line
 * saying which libraries it lacks: why a load that asked for it runs on the CPU or fails. Empty when none lacks any.
 */
export async function installedBuildsLackingLibraries(env: NodeJS.ProcessEnv = process.env, only?: GpuBuild): Promise<string[]> {
    const folder = env[gpuBuildsFolderVariable];
    if (folder == null || folder === "")
        return [];
    const lines: string[] = [];
    for (const build of await installedGpuBuildsIn(folder)) {
        if (only != null && build !== only)
            continue;
        const folders = gpuBuildPackages(build).map((packageName) => installedPackageFolder(folder, packageName));
        const line = missingLibrariesLine(build, await missingSharedLibraries(folders));
        if (line != null)
            lines.push(line);
    }
    return lines;
}
