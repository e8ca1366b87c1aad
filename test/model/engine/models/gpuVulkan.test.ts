import assert from "node:assert/strict";
import {execFile} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, describe, it} from "node:test";
import {promisify} from "node:util";
import {serveCli, type CliServer} from "../../../helpers/cliServer.js";
import {models, repoRoot} from "../../../helpers/paths.js";

/**
 * The GPU build fetched on demand, run for real without a GPU: Debian's mesa-vulkan-drivers brings lavapipe (llvmpipe),
 * a Vulkan device computed on the CPU, which ggml lists only when GGML_VK_VISIBLE_DEVICES names it (it skips CPU-type
 * devices otherwise). `gpu install vulkan` fetches @node-llama-cpp/linux-x64-vulkan from the npm registry into a data
 * folder; `serve --gpu vulkan` from that data folder must offload the model to llvmpipe and answer exactly what the CPU
 * build answers greedily; with no device visible the same load runs on the CPU, saying why in one line.
 * Needs: the npm registry, mesa-vulkan-drivers and libvulkan1 (scripts/e2e-setup.sh installs them under `npm test`).
 */
const linuxX64 = process.platform === "linux" && process.arch === "x64";
const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-gpu-vulkan-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

const cli = path.join(repoRoot, "dist/cli.js");
// One small sequence: lavapipe compiles each shader pipeline the first time it runs (most of the first answer's time).
const serveArgs = ["--model", models.chatml, "--no-auth", "--threads", "1", "--parallel", "1", "--context-size", "256"];
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GGML_VK_")
    && name !== "LOCAL_RESPONSES_GPU_BUILDS" && name !== "LOCAL_RESPONSES_GPU"));

async function greedyText(server: CliServer): Promise<string> {
    const response = await fetch(`${server.url}/chat/completions`, {
        method: "POST", headers: {"content-type": "application/json"},
        body: JSON.stringify({model: "any", messages: [{role: "user", content: "Tell me a story."}], max_tokens: 24, temperature: 0})
    });
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as {choices: {message: {content: string}}[]}).choices[0]!.message.content;
}

async function stop(server: CliServer): Promise<void> {
    if (server.child.exitCode != null)
        return;
    const exited = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGTERM");
    const timer = setTimeout(() => server.child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
}

/** Serves with `args` and `env`, answers one greedy request, stops; the answer, its time and the server's log. */
async function answerOnce(args: string[], env: NodeJS.ProcessEnv): Promise<{text: string, ms: number, log: string}> {
    const server = await serveCli([...serveArgs, ...args], {env});
    try {
        const started = performance.now();
        const text = await greedyText(server);
        return {text, ms: performance.now() - started, log: server.stderr()};
    } finally {
        await stop(server);
    }
}

const skip = linuxX64 ? false : "the Vulkan build this test fetches and runs is linux-x64's";

describe("the Vulkan build fetched by `gpu install`, on lavapipe", {skip}, () => {
    const dataDir = path.join(root, "data");

    it("`gpu install vulkan` fetches it from the registry into the data folder; `gpu status` lists it", async () => {
        const started = performance.now();
        const {stderr} = await promisify(execFile)(process.execPath, [cli, "gpu", "install", "vulkan", "--data-dir", dataDir],
            {env: baseEnv, timeout: 120_000});
        console.log(`gpu install vulkan: ${Math.round(performance.now() - started)} ms`);
        assert.match(stderr, /gpu: installed the vulkan build in [\d.]+ s: .*gpu\/node_modules\/@node-llama-cpp\/linux-x64-vulkan\n/);
        assert.match(stderr, /linux-x64-vulkan@3\.21\.1 100% of 2\d\.\d MB/);
        const addon = "gpu/node_modules/@node-llama-cpp/linux-x64-vulkan/bins/linux-x64-vulkan/llama-addon.node";
        assert.ok(fs.existsSync(path.join(dataDir, addon)));
        const status = await promisify(execFile)(process.execPath, [cli, "gpu", "status", "--data-dir", dataDir], {env: baseEnv});
        assert.equal(status.stdout, `installed: vulkan in ${path.join(dataDir, "gpu")}\n`);
    });

    /**
     * A data folder of its own (one server holds a store at a time) whose gpu/ is the installed one: servers run side
     * by side, to keep the test short on a busy machine.
     */
    function dataDirSharingBuilds(name: string): string {
        const own = path.join(root, name);
        fs.mkdirSync(own);
        fs.symlinkSync(path.join(dataDir, "gpu"), path.join(own, "gpu"));
        return own;
    }

    it("`serve --gpu vulkan` runs on llvmpipe with the CPU build's greedy text; with no device visible, on the CPU", async () => {
        const lavapipe = {...baseEnv, GGML_VK_VISIBLE_DEVICES: "0"};
        const [cpu, noDevice] = await Promise.all([
            answerOnce(["--gpu", "false", "--data-dir", path.join(root, "cpu-data")], baseEnv),
            answerOnce(["--gpu", "vulkan", "--data-dir", dataDirSharingBuilds("no-device-data")], baseEnv)
        ]);
        // gpu false asks for nothing to report: no backend line.
        assert.doesNotMatch(cpu.log, /^gpu /m);
        assert.ok(cpu.text.length > 20, cpu.text);
        const lines = noDevice.log.split("\n").filter((line) => line.startsWith("gpu "));
        assert.deepEqual(lines, ["gpu vulkan: the vulkan build found no vulkan device (no driver, or none visible: "
            + "GGML_VK_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES); models run on the CPU."]);
        assert.equal(noDevice.text, cpu.text);

        const [vulkan, auto] = await Promise.all([
            answerOnce(["--gpu", "vulkan", "--data-dir", dataDir], lavapipe),
            serveCli([...serveArgs, "--gpu", "auto", "--data-dir", dataDirSharingBuilds("auto-data")], {env: lavapipe})
                .then(async (server) => {
                    await stop(server);
                    return server.stderr();
                })
        ]);
        console.log(`lavapipe: first greedy answer in ${Math.round(vulkan.ms)} ms (CPU build: ${Math.round(cpu.ms)} ms)`);
        assert.match(vulkan.log, /^gpu vulkan: vulkan on llvmpipe \(LLVM [^)]*\)$/m);
        assert.equal(vulkan.text, cpu.text);
        // auto: the best build installed that this machine can run.
        assert.match(auto, /^gpu auto: vulkan on llvmpipe/m);
    });

    it("without the build (removed), `serve --gpu vulkan` fails to load, naming the package it looked for", async () => {
        await promisify(execFile)(process.execPath, [cli, "gpu", "remove", "--data-dir", dataDir], {env: baseEnv});
        await assert.rejects(serveCli([...serveArgs, "--gpu", "vulkan", "--data-dir", dataDir], {env: baseEnv}),
            /No usable node-llama-cpp binary for gpu vulkan on linux-x64 \(looked for @node-llama-cpp\/linux-x64-vulkan\)/);
    });
});
