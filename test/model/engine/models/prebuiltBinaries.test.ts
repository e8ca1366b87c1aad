import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {test} from "node:test";
import {repoRoot} from "../../../helpers/paths.js";
import {loadLlama, loadNodeLlamaCpp, modelGpuLayers} from "../../../../src/engine/models/loadBinding.js";
import {
    chooseLlamaBinary, missingBinaryHint, packagesForTarget, platformBinaries, vscodeTargets, type GpuSetting, type LlamaBinaryPlan
} from "../../../../src/engine/models/prebuiltBinaries.js";

const nlc = path.join(repoRoot, "node_modules/node-llama-cpp");

function plan(platform: string, arch: string, gpu: GpuSetting): LlamaBinaryPlan {
    const choice = chooseLlamaBinary(platform, arch, gpu);
    assert.ok(choice.ok, `${platform}-${arch} gpu ${String(gpu)}: ${choice.ok ? "" : choice.reason}`);
    return choice.plan;
}

function refused(platform: string, arch: string, gpu: GpuSetting): string {
    const choice = chooseLlamaBinary(platform, arch, gpu);
    assert.ok(!choice.ok, `${platform}-${arch} gpu ${String(gpu)} should be refused`);
    return choice.reason;
}

test("the table names exactly node-llama-cpp 3.21.1's binary packages, as its loader imports them", () => {
    const loader = fs.readFileSync(path.join(nlc, "dist/bindings/utils/compileLLamaCpp.js"), "utf8");
    const imported = new Set([...loader.matchAll(/import\("(@node-llama-cpp\/[a-z0-9-]+)"\)/g)].map((match) => match[1]));
    const optional = new Set(Object.keys(JSON.parse(fs.readFileSync(path.join(nlc, "package.json"), "utf8")).optionalDependencies));
    const ours = new Set(platformBinaries.flatMap((entry) => Object.values(entry.packages).flat()));
    assert.deepEqual([...ours].sort(), [...imported].sort());
    assert.deepEqual([...ours].sort(), [...optional].sort());
});

test("the VS Code targets with a VSIX", () => {
    assert.deepEqual([...vscodeTargets].sort(), ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "win32-arm64", "win32-x64"]);
});

test("gpu false is CPU only on every target: the CPU build, or Apple silicon's Metal build with no layer offloaded", () => {
    const expected: Record<string, [string, LlamaBinaryPlan["llamaGpu"], string]> = {
        "darwin-arm64": ["darwin arm64", "metal", "@node-llama-cpp/mac-arm64-metal"],
        "darwin-x64": ["darwin x64", false, "@node-llama-cpp/mac-x64"],
        "linux-x64": ["linux x64", false, "@node-llama-cpp/linux-x64"],
        "linux-arm64": ["linux arm64", false, "@node-llama-cpp/linux-arm64"],
        "win32-x64": ["win32 x64", false, "@node-llama-cpp/win-x64"],
        "win32-arm64": ["win32 arm64", false, "@node-llama-cpp/win-arm64"]
    };
    for (const target of vscodeTargets) {
        const [platform, arch] = expected[target]![0].split(" ") as [string, string];
        const chosen = plan(platform, arch, false);
        assert.equal(chosen.llamaGpu, expected[target]![1], target);
        assert.equal(chosen.gpuLayers, 0, target);
        assert.deepEqual(chosen.packages, [expected[target]![2]], target);
        // What gpu false loads is in that target's default VSIX.
        assert.ok(packagesForTarget(target).includes(expected[target]![2]), target);
        assert.equal(modelGpuLayers(false, platform, arch), 0);
    }
});

test("gpu auto lets node-llama-cpp pick among the builds installed, GPU ones first, CPU last", () => {
    assert.deepEqual(plan("darwin", "arm64", "auto"),
        {llamaGpu: "auto", gpuLayers: undefined, packages: ["@node-llama-cpp/mac-arm64-metal"]});
    assert.deepEqual(plan("linux", "x64", "auto").packages,
        [
            "@node-llama-cpp/linux-x64-cuda", "@node-llama-cpp/linux-x64-cuda-ext", "@node-llama-cpp/linux-x64-vulkan",
            "@node-llama-cpp/linux-x64"
        ]);
    assert.deepEqual(plan("win32", "x64", "auto").packages,
        ["@node-llama-cpp/win-x64-cuda", "@node-llama-cpp/win-x64-cuda-ext", "@node-llama-cpp/win-x64-vulkan", "@node-llama-cpp/win-x64"]);
    for (const [platform, arch] of [["darwin", "x64"], ["linux", "arm64"], ["win32", "arm64"]] as const)
        assert.equal(plan(platform, arch, "auto").packages.length, 1, `${platform}-${arch}`);
    assert.equal(modelGpuLayers("auto", "darwin", "arm64"), undefined);
});

test("a named backend loads that backend's package where node-llama-cpp builds one, and is refused elsewhere", () => {
    assert.deepEqual(plan("darwin", "arm64", "metal"),
        {llamaGpu: "metal", gpuLayers: undefined, packages: ["@node-llama-cpp/mac-arm64-metal"]});
    assert.deepEqual(plan("linux", "x64", "cuda").packages, ["@node-llama-cpp/linux-x64-cuda", "@node-llama-cpp/linux-x64-cuda-ext"]);
    assert.deepEqual(plan("linux", "x64", "vulkan").packages, ["@node-llama-cpp/linux-x64-vulkan"]);
    assert.deepEqual(plan("win32", "x64", "cuda").packages, ["@node-llama-cpp/win-x64-cuda", "@node-llama-cpp/win-x64-cuda-ext"]);
    assert.deepEqual(plan("win32", "x64", "vulkan").packages, ["@node-llama-cpp/win-x64-vulkan"]);
    // node-llama-cpp itself would turn metal into auto off macOS; the setting means Metal everywhere.
    assert.match(refused("linux", "x64", "metal"), /no Metal build for linux-x64 \(GPU backends there: Vulkan, CUDA\)/);
    assert.match(refused("win32", "arm64", "vulkan"), /no Vulkan build for win32-arm64 \(it runs on the CPU only\)/);
    assert.match(refused("darwin", "x64", "metal"), /no Metal build for darwin-x64/);
    assert.match(refused("darwin", "arm64", "cuda"), /no CUDA build for darwin-arm64 \(GPU backends there: Metal\)/);
    assert.match(refused("linux", "arm64", "cuda"), /no CUDA build/);
    assert.match(refused("freebsd", "x64", false), /no prebuilt binary for freebsd-x64/);
    // node-llama-cpp 3.21.1's 32-bit ARM package holds aarch64 binaries: no VSIX, and a clear refusal.
    assert.match(refused("linux", "arm", false), /linux-armv7l package holds 64-bit ARM \(aarch64\) binaries/);
});

test("each VSIX's packages: the default carries its shipped build; --gpu adds an optional one and keeps the CPU build", () => {
    assert.deepEqual(packagesForTarget("darwin-arm64"), ["@node-llama-cpp/mac-arm64-metal"]);
    assert.deepEqual(packagesForTarget("linux-x64"), ["@node-llama-cpp/linux-x64"]);
    assert.deepEqual(packagesForTarget("linux-x64", "vulkan"), ["@node-llama-cpp/linux-x64", "@node-llama-cpp/linux-x64-vulkan"]);
    assert.deepEqual(packagesForTarget("win32-x64", "cuda"),
        ["@node-llama-cpp/win-x64", "@node-llama-cpp/win-x64-cuda", "@node-llama-cpp/win-x64-cuda-ext"]);
    assert.throws(() => packagesForTarget("darwin-arm64", "metal"), /no separate metal build/);
    assert.throws(() => packagesForTarget("linux-arm64", "vulkan"), /no separate vulkan build/);
    assert.throws(() => packagesForTarget("alpine-x64"), /unknown VS Code target/);
    assert.match(missingBinaryHint("linux", "x64", "cuda"), /install the linux-x64 VSIX built with `--gpu cuda`/);
    assert.equal(missingBinaryHint("linux", "x64", false), "");
});

test("loadLlama on this machine: false loads the CPU build; a backend whose package is absent fails with the VSIX to use", async () => {
    const binding = await loadNodeLlamaCpp();
    const llama = await loadLlama(binding, false, {logLevel: binding.LlamaLogLevel.error, maxThreads: 1});
    try {
        assert.equal(llama.gpu, false);
        assert.equal(llama.buildType, "prebuilt");
    } finally {
        await llama.dispose();
    }
    await assert.rejects(loadLlama(binding, "metal", {logLevel: binding.LlamaLogLevel.error}),
        /gpu metal: There is no Metal build for linux-x64/);
    // This checkout installs only @node-llama-cpp/linux-x64 (.npmrc omit=optional), like the default VSIX.
    const vulkanInstalled = fs.existsSync(path.join(repoRoot, "node_modules/@node-llama-cpp/linux-x64-vulkan"));
    assert.ok(!vulkanInstalled, "installed with optional dependencies: run npm ci (the project's .npmrc omits them)");
    await assert.rejects(loadLlama(binding, "vulkan", {logLevel: binding.LlamaLogLevel.error, progressLogs: false}),
        /No usable node-llama-cpp binary for gpu vulkan on linux-x64 \(looked for @node-llama-cpp\/linux-x64-vulkan\)\. This install carries no Vulkan build/);
});
