// The linux-arm64 VSIX, actually run: an arm64 Node 20 under qemu (scripts/arm64-setup.sh) serves the shared
// model with the node-llama-cpp and the @node-llama-cpp/linux-arm64 binary unpacked from the VSIX, and answers one
// request from the openai SDK. The server is the headless face (dist/cli.js, built from the same sources as the
// VSIX's extension.js) placed beside the extension bundle, since the extension itself needs an editor to run.
// Emulated, so slow: one thread, one sequence, a small context and a few output tokens.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, test} from "node:test";
import OpenAI from "openai";
import {arm64Node, startArm64Server} from "../../helpers/arm64Cli.js";
import {models, repoRoot} from "../../helpers/paths.js";
import {buildVsixs, unpackVsix, vsixPath} from "../../packaging/helpers/vsix.js";

const minutes = 60_000;
let unpacked = "";
let nodeArm64 = "";

before(() => {
    nodeArm64 = arm64Node();
    buildVsixs(["linux-arm64"]);
    unpacked = unpackVsix(vsixPath("linux-arm64"));
    fs.copyFileSync(path.join(repoRoot, "dist/cli.js"), path.join(unpacked, "extension/dist/cli.js"));
});
after(() => fs.rmSync(unpacked, {recursive: true, force: true}));

test("linux-arm64 VSIX under qemu: loads the shared model from its own arm64 binary and answers a "
    + "request", {timeout: 20 * minutes}, async () => {
    const extension = path.join(unpacked, "extension");
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "lr-arm64-home-"));
    const started = performance.now();
    const server = await startArm64Server(nodeArm64, path.join(extension, "dist/cli.js"),
        ["--model", models.chatml, "--api-key", "sk-arm64"], {PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home});
    const {url} = server;
    try {
        const loadedMs = performance.now() - started;

        // What the emulated process mapped: node-llama-cpp's addon from the VSIX's linux-arm64 package, nothing x64.
        const maps = fs.readFileSync(`/proc/${server.pid}/maps`, "utf8");
        const addon = path.join(extension, "node_modules/@node-llama-cpp/linux-arm64/bins/linux-arm64/llama-addon.node");
        assert.ok(maps.includes(addon),
            `the arm64 addon from the VSIX is not `
                + `mapped:\n${maps.split("\n").filter((line) => line.includes(".so") || line.includes(".node")).join("\n")}`);
        // The durable store's LevelDB too: the VSIX's own arm64 prebuild, opened in the default data folder.
        const levelDb = path.join(extension, "node_modules/classic-level/prebuilds/linux-arm64/classic-level.armv8.node");
        assert.ok(maps.includes(levelDb), "the arm64 LevelDB prebuild from the VSIX is not mapped");
        assert.match(server.stderr(), /store: durable in \S+local-responses \(0 responses/);
        assert.ok(!/linux-x64|node_modules\/node-llama-cpp\/bins\//.test(maps.split("\n").filter((line) => line.includes(repoRoot))
            .join("\n")), "nothing loaded from this checkout");

        const client = new OpenAI({baseURL: url, apiKey: "sk-arm64", timeout: 10 * minutes, maxRetries: 0});
        const requestStarted = performance.now();
        const response = await client.responses.create({model: "stories260K", input: "Once upon a time", max_output_tokens: 8});
        const requestMs = performance.now() - requestStarted;
        assert.ok(response.status === "completed" || response.status === "incomplete", response.status);
        assert.ok(response.output_text.length > 0, JSON.stringify(response.output));
        assert.ok(response.usage != null && response.usage.output_tokens > 0 && response.usage.output_tokens <= 8,
            JSON.stringify(response.usage));
        console.log(
            `linux-arm64 under qemu: listening after ${(loadedMs / 1000).toFixed(1)} s, one response (${response.usage.output_tokens} `
                + `tokens) in ${(requestMs / 1000).toFixed(1)} s: ${JSON.stringify(response.output_text)}`
        );
    } finally {
        const code = await server.stop();
        fs.rmSync(home, {recursive: true, force: true});
        assert.equal(code, 0, server.stderr());
    }
});
