import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {backendDefaults} from "../../../src/engine/engineDefaults.js";
import {
    autoLlamaGpu, expectedBackend, installedBackends, runsOnCpuOnly, type BackendFacts
} from "../../../src/engine/models/backendChoice.js";
import type {Backend} from "../../../src/engine/models/prebuiltBinaries.js";
import type {GpuChoice} from "../../../src/engine/types.js";

const cpuDefaults = {batchSize: 128, flashAttention: false};
const gpuDefaults = {batchSize: 512, flashAttention: "auto"};

/** platform-arch, builds installed, `gpu`, GPU drivers present → backend (or a load error), and the settings it gets. */
const table: Array<[string, Backend[], GpuChoice, Backend[], Backend | "error"]> = [
    // The default VSIX of each platform, on a machine without a GPU (this one, CI): the CPU, as `false` runs.
    ["linux-x64", ["cpu"], "auto", [], "cpu"],
    ["linux-x64", ["cpu"], false, [], "cpu"],
    ["win32-x64", ["cpu"], "auto", [], "cpu"],
    ["darwin-x64", ["cpu"], "auto", [], "cpu"],
    ["linux-arm64", ["cpu"], "auto", [], "cpu"],
    // A GPU driver without its build installed (the CPU-only VSIX on a desktop with Vulkan): still the CPU.
    ["linux-x64", ["cpu"], "auto", ["vulkan", "cuda"], "cpu"],
    // Apple silicon: the Metal build is the only one; `false` keeps every layer on the CPU.
    ["darwin-arm64", ["metal"], "auto", ["metal"], "metal"],
    ["darwin-arm64", ["metal"], false, ["metal"], "cpu"],
    ["darwin-arm64", ["metal"], "cuda", ["metal"], "error"],
    // GPU builds installed: CUDA before Vulkan, each only where its driver is; else the CPU.
    ["linux-x64", ["cpu", "vulkan"], "auto", ["vulkan"], "vulkan"],
    ["linux-x64", ["cpu", "vulkan"], "auto", [], "cpu"],
    ["linux-x64", ["cpu", "cuda", "vulkan"], "auto", ["cuda", "vulkan"], "cuda"],
    ["linux-x64", ["cpu", "cuda", "vulkan"], "auto", ["vulkan"], "vulkan"],
    ["win32-x64", ["cpu", "cuda"], "auto", ["vulkan", "cuda"], "cuda"],
    ["win32-x64", ["cpu", "vulkan"], "auto", ["cuda"], "cpu"],
    ["linux-x64", ["cpu", "cuda"], false, ["cuda"], "cpu"],
    // A backend named: that one, or a load error that says why.
    ["linux-x64", ["cpu", "vulkan"], "vulkan", ["vulkan"], "vulkan"],
    ["linux-x64", ["cpu"], "vulkan", ["vulkan"], "error"],
    ["linux-x64", ["cpu", "cuda"], "cuda", [], "error"],
    ["linux-x64", ["cpu"], "metal", [], "error"],
    ["linux-arm", ["cpu"], "auto", [], "error"]
];

describe("the backend a `gpu` setting runs on, and the settings each backend gets", () => {
    for (const [target, installed, gpu, drivers, expected] of table) {
        it(`${target}, ${installed.join("+")} installed, gpu ${String(gpu)}, drivers: ${drivers.join("+") || "none"} → ${expected}`, () => {
            const [platform, arch] = target.split("-") as [string, string];
            const facts: BackendFacts = {platform, arch, installed, drivers, gpu};
            const choice = expectedBackend(facts);
            if (expected === "error") {
                assert.equal(choice.ok, false, JSON.stringify(choice));
                return;
            }
            assert.deepEqual(choice, {ok: true, backend: expected});
            assert.deepEqual(backendDefaults(expected), expected === "cpu" ? cpuDefaults : gpuDefaults);
        });
    }
});

describe("what `auto` asks node-llama-cpp for", () => {
    it("no GPU build installed: gpu false, the load `false` makes (no detection, no fallback warning)", () => {
        assert.equal(autoLlamaGpu("linux", "x64", ["cpu"]), false);
        assert.equal(autoLlamaGpu("win32", "x64", ["cpu"]), false);
        assert.equal(runsOnCpuOnly("auto", "linux", "x64", ["cpu"]), true);
        assert.equal(runsOnCpuOnly(false, "darwin", "arm64", ["metal"]), true);
        assert.equal(runsOnCpuOnly("auto", "linux", "x64", ["cpu", "vulkan"]), false);
    });

    it("GPU builds installed: node-llama-cpp's auto, the builds that are not installed excluded", () => {
        assert.deepEqual(autoLlamaGpu("linux", "x64", ["cpu", "vulkan"]), {type: "auto", exclude: ["metal", "cuda"]});
        assert.deepEqual(autoLlamaGpu("linux", "x64", ["cpu", "cuda", "vulkan"]), {type: "auto", exclude: ["metal"]});
        assert.deepEqual(autoLlamaGpu("darwin", "arm64", ["metal"]), {type: "auto", exclude: ["cuda", "vulkan"]});
    });

    it("a backend counts as installed only with all of its packages (CUDA comes in two)", () => {
        const present = new Set(["@node-llama-cpp/linux-x64", "@node-llama-cpp/linux-x64-cuda"]);
        assert.deepEqual(installedBackends("linux", "x64", (name) => present.has(name)), ["cpu"]);
        present.add("@node-llama-cpp/linux-x64-cuda-ext");
        assert.deepEqual(installedBackends("linux", "x64", (name) => present.has(name)), ["cpu", "cuda"]);
        assert.deepEqual(installedBackends("sunos", "x64", () => true), []);
    });

    it("this checkout: the CPU build of its platform resolves from node_modules", () => {
        assert.ok(installedBackends().length > 0, "node-llama-cpp's build for this platform is installed");
    });
});
