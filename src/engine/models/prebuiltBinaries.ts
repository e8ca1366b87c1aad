import type {GpuChoice} from "../types.js";

/**
 * Which of node-llama-cpp 3.21.1's prebuilt binary packages serves a platform, and how the `gpu` setting maps onto
 * them. Pure: the run-time loader (loadBinding.ts) and the VSIX packager (scripts/package-vsix.mjs) both read it,
 * so a VSIX carries exactly what its platform's loader will ask for.
 *
 * node-llama-cpp finds a binary package with `import("@node-llama-cpp/<name>")` chosen from (platform, arch, gpu
 * type) — see `getPrebuiltBinariesPackageDirectoryForBuildOptions` in its dist/bindings/utils/compileLLamaCpp.js.
 * Two quirks this module exists for:
 *   - Apple silicon has only a Metal build: `getLlama({gpu: false, build: "never"})` finds no binary there. CPU-only
 *     is the Metal build with no layers offloaded (`gpuLayers: 0`).
 *   - Outside macOS node-llama-cpp quietly turns `gpu: "metal"` into `"auto"`; here it is refused instead, so that
 *     every value of the setting means the same thing on every platform.
 */

/** The `gpu` setting / `--gpu` flag. */
export type GpuSetting = GpuChoice;

/** A compute backend of a prebuilt build. */
export type Backend = "cpu" | "metal" | "vulkan" | "cuda";

export type PlatformBinaries = {
    /** `process.platform` and `process.arch` this entry serves. */
    platform: string,
    arch: string,
    /** The VS Code `--target` of its VSIX; null where VS Code publishes no target (the CLI may still run there). */
    vscodeTarget: string | null,
    /** node-llama-cpp's prebuilt packages for each backend it builds here (a CUDA build comes in two packages). */
    packages: Partial<Record<Backend, readonly string[]>>,
    /** Backends the platform's default VSIX carries; the others, when built here, make an optional larger VSIX. */
    shipped: readonly Backend[],
    /** Why node-llama-cpp's package for this platform cannot run there, when it cannot. */
    unusable?: string
};

const scope = "@node-llama-cpp/";

export const platformBinaries: readonly PlatformBinaries[] = [
    {platform: "darwin", arch: "arm64", vscodeTarget: "darwin-arm64", packages: {metal: [`${scope}mac-arm64-metal`]}, shipped: ["metal"]},
    {platform: "darwin", arch: "x64", vscodeTarget: "darwin-x64", packages: {cpu: [`${scope}mac-x64`]}, shipped: ["cpu"]},
    {
        platform: "linux", arch: "x64", vscodeTarget: "linux-x64",
        packages: {
            cpu: [`${scope}linux-x64`], vulkan: [`${scope}linux-x64-vulkan`], cuda: [`${scope}linux-x64-cuda`, `${scope}linux-x64-cuda-ext`]
        },
        shipped: ["cpu"]
    },
    {platform: "linux", arch: "arm64", vscodeTarget: "linux-arm64", packages: {cpu: [`${scope}linux-arm64`]}, shipped: ["cpu"]},
    {
        platform: "linux", arch: "arm", vscodeTarget: null, packages: {cpu: [`${scope}linux-armv7l`]}, shipped: ["cpu"],
        // Read from their ELF headers (test/packaging): every binary in @node-llama-cpp/linux-armv7l@3.21.1 is aarch64.
        unusable: "node-llama-cpp 3.21.1's linux-armv7l package holds 64-bit ARM (aarch64) binaries, which a 32-bit ARM system cannot load."
    },
    {platform: "linux", arch: "riscv64", vscodeTarget: null, packages: {cpu: [`${scope}linux-riscv64`]}, shipped: ["cpu"]},
    {
        platform: "win32", arch: "x64", vscodeTarget: "win32-x64",
        packages: {
            cpu: [`${scope}win-x64`], vulkan: [`${scope}win-x64-vulkan`], cuda: [`${scope}win-x64-cuda`, `${scope}win-x64-cuda-ext`]
        },
        shipped: ["cpu"]
    },
    {platform: "win32", arch: "arm64", vscodeTarget: "win32-arm64", packages: {cpu: [`${scope}win-arm64`]}, shipped: ["cpu"]}
];

/** The VS Code targets a VSIX is built for (`npm run package` builds each). */
export const vscodeTargets: readonly string[] = platformBinaries.flatMap((entry) => entry.vscodeTarget ?? []);

export function binariesForTarget(target: string): PlatformBinaries | undefined {
    return platformBinaries.find((entry) => entry.vscodeTarget === target);
}

/**
 * The binary packages a VSIX for `target` carries: its shipped backends, plus `extra` (an opt-in GPU backend whose
 * build is too large for the default VSIX). Every VSIX carries what `gpu: false` loads, so CPU-only works in each.
 */
export function packagesForTarget(target: string, extra?: Backend): string[] {
    const entry = binariesForTarget(target);
    if (entry == null)
        throw new Error(`unknown VS Code target '${target}'; one of: ${vscodeTargets.join(", ")}`);
    if (extra != null && (entry.packages[extra] == null || entry.shipped.includes(extra)))
        throw new Error(`node-llama-cpp has no separate ${extra} build for ${target} (its VSIX carries: ${entry.shipped.join(", ")})`);
    return [...entry.shipped, ...(extra == null ? [] : [extra])].flatMap((backend) => entry.packages[backend] ?? []);
}

/** How to load node-llama-cpp for a `gpu` setting on one platform. */
export type LlamaBinaryPlan = {
    /** `getLlama`'s `gpu` option. */
    llamaGpu: "auto" | false | "metal" | "vulkan" | "cuda",
    /** `loadModel`'s `gpuLayers`: 0 keeps every layer on the CPU; undefined lets node-llama-cpp fit what it can. */
    gpuLayers: 0 | undefined,
    /** The packages this plan loads from, in node-llama-cpp's order of preference (for "auto": the first it can use). */
    packages: readonly string[]
};

export type LlamaBinaryChoice = {ok: true, plan: LlamaBinaryPlan} | {ok: false, reason: string};

const backendNames: Record<Backend, string> = {cpu: "CPU", metal: "Metal", vulkan: "Vulkan", cuda: "CUDA"};

/**
 * The plan for `gpu` on `platform`/`arch`. The setting's values mean, everywhere:
 *   false    — CPU only: no layer is offloaded to a GPU;
 *   "auto"   — the best GPU backend among the builds installed that this machine can run, else the CPU;
 *   "metal" / "vulkan" / "cuda" — that backend, or a load error saying why it is not available here.
 */
export function chooseLlamaBinary(platform: string, arch: string, gpu: GpuSetting): LlamaBinaryChoice {
    const entry = platformBinaries.find((candidate) => candidate.platform === platform && candidate.arch === arch);
    if (entry == null)
        return {ok: false, reason: `node-llama-cpp 3.21.1 publishes no prebuilt binary for ${platform}-${arch}.`};
    if (entry.unusable != null)
        return {ok: false, reason: entry.unusable};
    const {packages} = entry;
    if (gpu === false) {
        if (packages.cpu != null)
            return {ok: true, plan: {llamaGpu: false, gpuLayers: 0, packages: packages.cpu}};
        // Apple silicon: the Metal build is the only one; with no layers offloaded it computes on the CPU.
        return {ok: true, plan: {llamaGpu: "metal", gpuLayers: 0, packages: packages.metal ?? []}};
    }
    if (gpu === "auto") {
        const order: Backend[] = ["metal", "cuda", "vulkan", "cpu"];
        return {ok: true, plan: {llamaGpu: "auto", gpuLayers: undefined, packages: order.flatMap((backend) => packages[backend] ?? [])}};
    }
    const wanted = packages[gpu];
    if (wanted == null) {
        const available = (Object.keys(packages) as Backend[]).filter((backend) => backend !== "cpu").map(
            (backend) => backendNames[backend]
        );
        return {
            ok: false,
            reason: `There is no ${backendNames[gpu]} build for ${platform}-${arch}`
                + (available.length > 0 ? ` (GPU backends there: ${available.join(", ")}).` : " (it runs on the CPU only).")
        };
    }
    return {ok: true, plan: {llamaGpu: gpu, gpuLayers: undefined, packages: wanted}};
}

/** What to tell a user whose chosen backend's binary package is not installed (a VSIX without that build). */
export function missingBinaryHint(platform: string, arch: string, gpu: GpuSetting): string {
    const entry = platformBinaries.find((candidate) => candidate.platform === platform && candidate.arch === arch);
    const backend: Backend = gpu === false || gpu === "auto" ? "cpu" : gpu;
    if (entry == null || entry.shipped.includes(backend) || entry.vscodeTarget == null)
        return "";
    return ` This install carries no ${backendNames[backend]} build: install the ${entry.vscodeTarget} VSIX built with`
        + ` \`--gpu ${backend}\`, or set gpu to false or auto (see docs/vscode.md, "Which VSIX").`;
}
