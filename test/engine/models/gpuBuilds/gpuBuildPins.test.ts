import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {test} from "node:test";
import {gpuBuildIntegrity, gpuBuildVersion, registryTarballUrl} from "../../../../src/engine/models/gpuBuilds/gpuBuildPins.js";
import {platformBinaries} from "../../../../src/engine/models/prebuiltBinaries.js";
import {repoRoot} from "../../../helpers/paths.js";

type LockEntry = {version: string, integrity: string};
const lock = JSON.parse(fs.readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) as {packages: Record<string, LockEntry>};

test("the GPU builds' pins are package-lock.json's, for every CUDA and Vulkan package prebuiltBinaries.ts names", () => {
    const gpuPackages = platformBinaries.flatMap((entry) => [...entry.packages.cuda ?? [], ...entry.packages.vulkan ?? []]).sort();
    assert.deepEqual(Object.keys(gpuBuildIntegrity).sort(), gpuPackages);
    for (const name of gpuPackages) {
        const entry = lock.packages[`node_modules/${name}`];
        assert.equal(entry?.version, gpuBuildVersion, name);
        assert.equal(gpuBuildIntegrity[name], entry.integrity, name);
    }
    assert.equal(lock.packages["node_modules/node-llama-cpp"]?.version, gpuBuildVersion);
});

test("a tarball's URL is npm's: <registry>/@scope/name/-/name-<version>.tgz", () => {
    assert.equal(registryTarballUrl("https://registry.npmjs.org/", "@node-llama-cpp/linux-x64-vulkan"),
        "https://registry.npmjs.org/@node-llama-cpp/linux-x64-vulkan/-/linux-x64-vulkan-3.21.1.tgz");
});
