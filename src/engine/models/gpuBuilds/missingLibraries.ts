import {execFile} from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import {promisify} from "node:util";
import {gpuBuildPackages, installedGpuBuildsIn, type GpuBuild} from "./installGpuBuild.js";
import {gpuBuildsFolderVariable, installedPackageFolder} from "./installedGpuBuilds.js";

/**
 * The shared libraries a package's binaries need that the system's loader cannot find (Linux, via `ldd`), e.g. the
 * CUDA runtime's libcublas.so.13 and the NVIDIA driver's libcuda.so.1, which node-llama-cpp's CUDA build does not
 * carry. Libraries any of `buildFolders` carries (the CUDA fallback's libggml-base.so is the main package's) are found
 * at load time through the build's own paths, so they do not count. Empty where `ldd` is absent or not on Linux: the
 * load then says what failed itself.
 */
export async function missingSharedLibraries(packageFolder: string, buildFolders: readonly string[] = [packageFolder],
    platform: string = process.platform): Promise<string[]> {
    if (platform !== "linux")
        return [];
    const carried = new Set<string>();
    for (const folder of buildFolders)
        for (const binary of await listBinaries(path.join(folder, "bins")))
            carried.add(path.basename(binary));
    const missing = new Set<string>();
    for (const binary of await listBinaries(path.join(packageFolder, "bins"))) {
        let output: string;
        try {
            output = (await promisify(execFile)("ldd", [binary])).stdout;
        } catch (error) {
            // ldd exits 1 when it lists missing libraries on some systems; its output is still the list.
            output = (error as {stdout?: string}).stdout ?? "";
        }
        for (const match of output.matchAll(/^\s*(\S+)\s+=>\s+not found/gm))
            if (!carried.has(match[1]!))
                missing.add(match[1]!);
    }
    return [...missing].sort();
}

async function listBinaries(folder: string): Promise<string[]> {
    const entries = await fs.readdir(folder, {withFileTypes: true, recursive: true}).catch(() => []);
    return entries.filter((entry) => entry.isFile() && /\.(node|so(\.\d+)*)$/.test(entry.name))
        .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * One line naming what a build lacks, or null when one of its packages has all it needs. `missing` holds one list per
 * package: the CUDA build is a main package (CUDA 13) and a fallback (-cuda-ext, CUDA 12), either of which may load.
 */
export function missingLibrariesLine(build: string, missing: readonly (readonly string[])[]): string | null {
    if (missing.length === 0 || missing.some((libraries) => libraries.length === 0))
        return null;
    const [first, ...fallbacks] = missing;
    const alternatives = fallbacks.map((libraries) => ` (or, for its fallback build, ${libraries.join(", ")})`).join("");
    const hint = build === "cuda"
        ? "the NVIDIA driver (libcuda.so.1) and the CUDA runtime's cudart and cuBLAS (13, or 12 for the fallback)"
        : "the Vulkan loader and a driver, e.g. Debian's libvulkan1 and mesa-vulkan-drivers";
    return `the ${build} build needs ${first!.join(", ")}${alternatives}, which this system does not have: install ${hint}.`;
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
        const missing = await Promise.all(folders.map((packageFolder) => missingSharedLibraries(packageFolder, folders)));
        const line = missingLibrariesLine(build, missing);
        if (line != null)
            lines.push(line);
    }
    return lines;
}
