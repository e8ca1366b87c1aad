import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, test} from "node:test";
import {
    gpuBuildsFolderVariable, installedPackageFolder, useInstalledGpuBuilds
} from "../../../../src/engine/models/gpuBuilds/installedGpuBuilds.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-gpu-hook-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

/** A package shaped like node-llama-cpp's binary packages (ESM, `exports`), which node_modules does not hold. */
function writePackage(folder: string, name: string): void {
    const packageFolder = installedPackageFolder(folder, name);
    fs.mkdirSync(path.join(packageFolder, "dist"), {recursive: true});
    fs.writeFileSync(path.join(packageFolder, "package.json"), JSON.stringify({
        name, version: "3.21.1", type: "module", exports: {".": {import: "./dist/index.js"}}
    }));
    fs.writeFileSync(path.join(packageFolder, "dist", "index.js"), `export const where = ${JSON.stringify(packageFolder)};\n`);
}

test("an @node-llama-cpp/* import that node_modules cannot resolve is resolved from the GPU builds' folder", async () => {
    const name = "@node-llama-cpp/lr-test-gpu-build";
    const folder = path.join(root, "gpu");
    writePackage(folder, name);
    // As node-llama-cpp's own `import("@node-llama-cpp/<name>")`: a bare specifier, resolved at run time.
    const importIt = (specifier: string) => import(specifier) as Promise<{where: string}>;
    await assert.rejects(importIt(name), {code: "ERR_MODULE_NOT_FOUND"});
    useInstalledGpuBuilds({});
    await assert.rejects(importIt(name), {code: "ERR_MODULE_NOT_FOUND"});

    useInstalledGpuBuilds({[gpuBuildsFolderVariable]: folder});
    assert.equal((await importIt(name)).where, installedPackageFolder(folder, name));
    // Only node-llama-cpp's scope is looked up there.
    writePackage(folder, "lr-test-other-package");
    await assert.rejects(importIt("lr-test-other-package"), {code: "ERR_MODULE_NOT_FOUND"});
});
