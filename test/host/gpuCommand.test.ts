import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, test} from "node:test";
import {gpuBuildsFolderVariable} from "../../src/engine/models/gpuBuilds/installedGpuBuilds.js";
import {runGpuCommand, useGpuBuildsOf} from "../../src/host/gpuCommand.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-gpu-command-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

async function run(argv: string[]): Promise<{code: number, lines: string[]}> {
    const lines: string[] = [];
    const code = await runGpuCommand(argv, (line) => lines.push(line));
    return {code, lines};
}

test("gpu: a usage error is one line and exit 2, before any network use", async () => {
    assert.deepEqual(await run(["install", "--data-dir", root]), {code: 2, lines: ["error: gpu install: name one build: cuda or vulkan"]});
    assert.deepEqual(await run(["install", "metal", "--data-dir", root]),
        {code: 2, lines: ["error: gpu install: unknown argument 'metal' (builds: cuda, vulkan)"]});
    assert.deepEqual(await run(["upgrade"]), {code: 2, lines: ["error: gpu: unknown action 'upgrade'"]});
    assert.deepEqual(await run(["install", "vulkan", "--data-dir"]), {code: 2, lines: ["error: --data-dir needs a value"]});
    assert.deepEqual(fs.readdirSync(root), []);
});

test("gpu install from a registry nothing answers: one line, nothing installed, exit 1", async () => {
    const {code, lines} = await run(["install", "vulkan", "--data-dir", root, "--registry", "http://127.0.0.1:9"]);
    assert.equal(code, 1);
    assert.deepEqual(lines.filter((line) => line.startsWith("error:")), lines);
    assert.match(lines[0]!, /^error: gpu install vulkan: cannot reach http:\/\/127\.0\.0\.1:9 .*are you offline\? \(nothing was installed; the CPU build keeps working\)$/);
    assert.deepEqual(fs.readdirSync(path.join(root, "gpu")), []);
});

test("gpu remove with nothing installed says so; serve's engine is pointed at <data>/gpu unless the variable is set", async () => {
    assert.deepEqual(await run(["remove", "--data-dir", root]), {code: 0, lines: [`gpu: nothing to remove in ${path.join(root, "gpu")}`]});
    const env: NodeJS.ProcessEnv = {};
    useGpuBuildsOf(root, env);
    assert.equal(env[gpuBuildsFolderVariable], path.join(root, "gpu"));
    useGpuBuildsOf("/elsewhere", env);
    assert.equal(env[gpuBuildsFolderVariable], path.join(root, "gpu"));
});
