import {execFile} from "node:child_process";
import {randomBytes} from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import {promisify} from "node:util";
import {platformBinaries} from "../prebuiltBinaries.js";
import {defaultRegistry, gpuBuildIntegrity, gpuBuildVersion, registryTarballUrl} from "./gpuBuildPins.js";
import {installedPackageFolder} from "./installedGpuBuilds.js";
import {writeHashed} from "../hashedDownload.js";

/** The GPU backends node-llama-cpp publishes as separate builds. */
export type GpuBuild = "cuda" | "vulkan";

export const gpuBuilds: readonly GpuBuild[] = ["cuda", "vulkan"];

export type GpuInstallProgress = {packageName: string, downloadedBytes: number, totalBytes: number};

export type InstallGpuBuildOptions = {
    /** The GPU builds' folder (see `gpuBuildsFolder`). */
    folder: string,
    build: GpuBuild,
    platform?: string,
    arch?: string,
    /** The npm registry to fetch from (default: registry.npmjs.org). */
    registry?: string,
    /** Overrides: the tarball URL and the expected integrity of a package (tests serve their own tarballs). */
    tarballUrl?: (packageName: string) => string,
    integrity?: (packageName: string) => string | undefined,
    onProgress?: (progress: GpuInstallProgress) => void,
    signal?: AbortSignal
};

/** node-llama-cpp's packages of `build` for a platform; throws, saying what exists, where there are none. */
export function gpuBuildPackages(build: GpuBuild, platform: string = process.platform, arch: string = process.arch): readonly string[] {
    const entry = platformBinaries.find((candidate) => candidate.platform === platform && candidate.arch === arch);
    const packages = entry?.packages[build];
    if (packages == null) {
        const available = gpuBuilds.filter((candidate) => entry?.packages[candidate] != null);
        throw new Error(`node-llama-cpp ${gpuBuildVersion} has no ${build} build for ${platform}-${arch}`
            + (available.length > 0 ? ` (there: ${available.join(", ")})` : " (it runs on the CPU only there)"));
    }
    return packages;
}

/**
 * Fetches the packages of a GPU build from the registry into `folder`, each checked against its pinned integrity
 * before anything is unpacked. All or nothing: every tarball is downloaded and unpacked into a scratch folder inside
 * `folder` first, and only when all are good is each renamed into place; an error, an integrity mismatch or the
 * signal leaves what was installed before untouched and no scratch behind. Resolves to the installed folders.
 */
export async function installGpuBuild(options: InstallGpuBuildOptions): Promise<string[]> {
    const packages = gpuBuildPackages(options.build, options.platform, options.arch);
    await fs.mkdir(options.folder, {recursive: true});
    const scratch = path.join(options.folder, `.installing-${randomBytes(6).toString("hex")}`);
    await fs.mkdir(scratch);
    try {
        const unpacked: Array<[string, string]> = [];
        for (const packageName of packages) {
            const url = options.tarballUrl?.(packageName) ?? registryTarballUrl(options.registry ?? defaultRegistry, packageName);
            const expected = options.integrity?.(packageName) ?? gpuBuildIntegrity[packageName];
            if (expected == null)
                throw new Error(`${packageName} has no pinned integrity`);
            const tarball = path.join(scratch, `${unpacked.length}.tgz`);
            await downloadChecked(url, tarball, expected, packageName, options);
            const target = path.join(scratch, `${unpacked.length}`);
            await fs.mkdir(target);
            await promisify(execFile)("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"], {signal: options.signal});
            await fs.rm(tarball);
            unpacked.push([packageName, target]);
        }
        options.signal?.throwIfAborted();
        const installed: string[] = [];
        for (const [packageName, target] of unpacked) {
            const destination = installedPackageFolder(options.folder, packageName);
            await fs.mkdir(path.dirname(destination), {recursive: true});
            await fs.rm(destination, {recursive: true, force: true});
            await fs.rename(target, destination);
            installed.push(destination);
        }
        return installed;
    } catch (error) {
        // Streams and tar report a cancel as their own AbortError: the caller's reason says who cancelled.
        throw options.signal?.aborted ? options.signal.reason as Error : error;
    } finally {
        await fs.rm(scratch, {recursive: true, force: true});
    }
}

/** Removes the packages of a GPU build from `folder`; resolves to the folders that were there. */
export async function removeGpuBuild(folder: string, build: GpuBuild, platform?: string, arch?: string): Promise<string[]> {
    const removed: string[] = [];
    for (const packageName of gpuBuildPackages(build, platform, arch)) {
        const destination = installedPackageFolder(folder, packageName);
        if (await fs.stat(destination).then(() => true, () => false)) {
            await fs.rm(destination, {recursive: true, force: true});
            removed.push(destination);
        }
    }
    return removed;
}

/** The GPU builds fully installed in `folder` for this platform, at the pinned version. */
export async function installedGpuBuildsIn(folder: string, platform?: string, arch?: string): Promise<GpuBuild[]> {
    const installed: GpuBuild[] = [];
    for (const build of gpuBuilds) {
        let packages: readonly string[];
        try {
            packages = gpuBuildPackages(build, platform, arch);
        } catch {
            continue;
        }
        const versions = await Promise.all(packages.map((packageName) =>
            fs.readFile(path.join(installedPackageFolder(folder, packageName), "package.json"), "utf8")
                .then((text) => (JSON.parse(text) as {version?: string}).version, () => undefined)));
        if (versions.every((version) => version === gpuBuildVersion))
            installed.push(build);
    }
    return installed;
}

/** Downloads `url` to `file`, hashing as it writes; a tarball whose SRI sha512 is not `expected` is refused. */
async function downloadChecked(url: string, file: string, expected: string, packageName: string,
    options: InstallGpuBuildOptions): Promise<void> {
    let response: Response;
    try {
        response = await fetch(url, {signal: options.signal});
    } catch (error) {
        if (options.signal?.aborted)
            throw error;
        const cause = (error as {cause?: {code?: string, message?: string}}).cause;
        throw new Error(`cannot reach ${new URL(url).origin} to fetch ${packageName} (${cause?.code ?? cause?.message
            ?? (error as Error).message}): are you offline?`, {cause: error});
    }
    if (!response.ok || response.body == null)
        throw new Error(`${url}: HTTP ${response.status}`);
    const actual = `sha512-${await writeHashed(response, file, {
        algorithm: "sha512", encoding: "base64", signal: options.signal,
        onProgress: (downloadedBytes, totalBytes) => options.onProgress?.({packageName, downloadedBytes, totalBytes})
    })}`;
    if (actual !== expected)
        throw new Error(`${packageName}@${gpuBuildVersion} from ${url} does not match its pinned integrity (got ${actual.slice(0, 23)}…, `
            + `expected ${expected.slice(0, 23)}…): nothing was installed`);
}
