import assert from "node:assert/strict";
import {spawn} from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import {once} from "node:events";
import {describe, it} from "node:test";
import {models, repoRoot} from "../helpers/paths.js";

const cli = path.join(repoRoot, "dist/cli.js");

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
    // Each server gets its own durable store: the default data folder is the user's, and one process holds it at a time.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-data-"));
    const child = spawn(process.execPath, [cli, ...args],
        {env: {...process.env, LOCAL_RESPONSES_DATA_DIR: dataDir, ...env}, stdio: ["ignore", "pipe", "pipe"]});
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const exited = once(child, "exit").then(([code]) => code as number);
    return {child, exited, output: () => ({stdout, stderr})};
}

describe("headless CLI (dist/cli.js, built by npm test)", () => {
    it("exits non-zero with a clear message for a missing model file", async () => {
        const {exited, output} = run(["serve", "--model", "/nonexistent/model.gguf", "--no-auth"]);
        assert.equal(await exited, 2);
        assert.match(output().stderr, /model file not found: \/nonexistent\/model\.gguf/);
    });

    it("exits non-zero with a clear message for a file that is not a GGUF model, before loading anything", async () => {
        const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "lr-")), "bad.gguf");
        fs.writeFileSync(file, "this is not a model");
        const {exited, output} = run(["serve", "--model", file, "--no-auth", "--port", "0"]);
        assert.equal(await exited, 2);
        assert.match(output().stderr, /^error: \S*bad\.gguf is not a GGUF model \(it does not start with 'GGUF'\): give --model a \.gguf file/m);
        assert.doesNotMatch(output().stderr, /store:/);
    });

    it("with no --model serves the bundled demo model, and says so", async () => {
        const args = ["serve", "--port", "0", "--threads", "1", "--api-key", "sk-demo"];
        const {child, exited, output} = run(args, {LOCAL_RESPONSES_MODEL: undefined});
        while (!output().stdout.includes("\n") && child.exitCode == null)
            await new Promise((resolve) => setTimeout(resolve, 20));
        const url = /listening on (\S+)/.exec(output().stdout)?.[1];
        assert.ok(url, output().stderr);
        assert.match(output().stderr, /model: no --model given, serving the bundled demo model \S+models\/stories260K\.gguf \(/);
        const answer = await (await fetch(`${url}/chat/completions`, {
            method: "POST", headers: {"authorization": "Bearer sk-demo", "content-type": "application/json"},
            body: JSON.stringify({model: "any", messages: [{role: "user", content: "Tell me a story."}], max_tokens: 8})
        })).json() as {model: string, choices: {message: {content: string}}[]};
        assert.equal(answer.model, "stories260K");
        assert.ok(answer.choices[0]!.message.content.length > 0);
        child.kill("SIGTERM");
        assert.equal(await exited, 0);
    });

    it("a model and context too big for the machine's memory: the estimate and the memory, before loading", async () => {
        const {exited, output} = run(["serve", "--context-size", "1048576", "--parallel", "64", "--no-auth", "--port", "0"]);
        assert.equal(await exited, 1);
        assert.match(output().stderr,
            /^error: stories260K\.gguf needs about [\d.]+ GB of memory \([\d.]+ GB weights \+ [\d.]+ GB for 64 × 1048576 tokens of context\), this machine has [\d.]+ GB available of [\d.]+ GB: use a smaller model/m);
        assert.doesNotMatch(output().stderr, /model: loaded/);
    });

    it("a port in use: one line naming it and --port", async () => {
        const holder = net.createServer();
        await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
        const port = (holder.address() as net.AddressInfo).port;
        const {exited, output} = run(["serve", "--model", models.chatml, "--no-auth", "--port", String(port), "--threads", "1"]);
        try {
            assert.equal(await exited, 1);
        } finally {
            holder.close();
        }
        const inUse = `^error: port ${port} on 127\\.0\\.0\\.1 is already in use .*--port 0 for any free one$`;
        assert.match(output().stderr, new RegExp(inUse, "m"));
    });

    it("on a Node older than 20: one line, before anything else runs", async () => {
        // The bundle's first statement reads process.versions.node: a preload makes this Node report 18.
        const preload = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "lr-old-node-")), "node18.cjs");
        fs.writeFileSync(preload, "Object.defineProperty(process.versions, \"node\", {value: \"18.19.0\"});\n"
            + "Object.defineProperty(process, \"version\", {value: \"v18.19.0\"});\n");
        const {exited, output} = run(["serve", "--no-auth", "--port", "0"], {NODE_OPTIONS: `--require ${preload}`});
        assert.equal(await exited, 1);
        assert.equal(output().stderr, "error: local-responses needs Node.js 20 or newer, this is v18.19.0: "
            + "install a current Node.js (nodejs.org) and run it again\n");
        assert.equal(output().stdout, "");
    });

    it("refuses bad flags with usage", async () => {
        const {exited, output} = run(["serve", "--model", models.chatml, "--threads", "zero"]);
        assert.equal(await exited, 2);
        assert.match(output().stderr, /--threads must be an integer/);
    });

    it("refuses an unknown chat wrapper in one line that lists the names, and says the chosen format when it loads", async () => {
        const refused = run(["serve", "--model", models.chatml, "--chat-wrapper", "chatml"]);
        assert.equal(await refused.exited, 2);
        assert.match(refused.output().stderr, /^error: --chat-wrapper must be auto, general, .*chatML.*kimi-k2.* \(got 'chatml'\)\.$/m);
        const {child, exited, output} = run(["serve", "--model", models.chatml, "--port", "0", "--threads", "1", "--no-auth",
            "--chat-wrapper", "kimi-k2"]);
        while (!output().stdout.includes("\n") && child.exitCode == null)
            await new Promise((resolve) => setTimeout(resolve, 20));
        assert.match(output().stderr, /model: loaded stories260K on CPU \(.*ChatML\+kimi-k2 \(family kimi-k2, tool calls understood\)/);
        child.kill("SIGTERM");
        assert.equal(await exited, 0);
    });

    it("prints one 'listening on' line, serves with a generated 0600 key file, and exits 0 on SIGTERM", async () => {
        const home = fs.mkdtempSync(path.join(os.tmpdir(), "lr-home-"));
        const {child, exited, output} = run(["serve", "--model", models.chatml, "--port", "0", "--threads", "1"], {XDG_CONFIG_HOME: home});
        while (!output().stdout.includes("\n"))
            await new Promise((resolve) => setTimeout(resolve, 20));
        const match = /^listening on (http:\/\/127\.0\.0\.1:\d+\/v1)\n$/.exec(output().stdout);
        assert.ok(match, `stdout: ${output().stdout}`);
        const keyFile = path.join(home, "local-responses", "api-key");
        assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600);
        const key = fs.readFileSync(keyFile, "utf8").trim();
        assert.ok(!output().stderr.includes(key), "the key is never printed");

        const unauthorized = await fetch(`${match[1]}/models`);
        assert.equal(unauthorized.status, 401);
        const models_ = await fetch(`${match[1]}/models`, {headers: {authorization: `Bearer ${key}`}});
        assert.equal(models_.status, 200);

        child.kill("SIGTERM");
        assert.equal(await exited, 0);
        assert.match(output().stderr, /SIGTERM: shutting down/);
    });

    it("takes its settings from environment variables too", async () => {
        const {child, exited, output} = run(["serve"], {
            LOCAL_RESPONSES_MODEL: models.chatml, LOCAL_RESPONSES_PORT: "0", LOCAL_RESPONSES_API_KEY: "sk-env",
            LOCAL_RESPONSES_THREADS: "1", LOCAL_RESPONSES_MODEL_ALIAS: "tiny"
        });
        while (!output().stdout.includes("\n"))
            await new Promise((resolve) => setTimeout(resolve, 20));
        const url = /listening on (\S+)/.exec(output().stdout)![1]!;
        const list = await (await fetch(`${url}/models`, {headers: {"x-api-key": "sk-env"}})).json() as {data: {id: string}[]};
        assert.equal(list.data[0]!.id, "tiny");
        child.kill("SIGINT");
        assert.equal(await exited, 0);
    });

    it("refuses --no-auth off loopback, naming the flags, before loading the model", async () => {
        const {exited, output} = run(["serve", "--model", models.chatml, "--host", "0.0.0.0", "--no-auth", "--port", "0"]);
        assert.equal(await exited, 2);
        assert.match(output().stderr, /--host 0\.0\.0\.0 is not a loopback address.*Drop --no-auth/s);
        assert.doesNotMatch(output().stderr, /model: loaded/);
    });

    it("refuses --allowed-origins '*' without a key", async () => {
        const {exited, output} = run(["serve", "--model", models.chatml, "--allowed-origins", "*", "--no-auth", "--port", "0"]);
        assert.equal(await exited, 2);
        assert.match(output().stderr, /--allowed-origins '\*' lets any web page call the server: it needs an API key/);
    });

    it("says auth is on when a key is given with --no-auth, and requires the key", async () => {
        const {child, exited,
            output} = run(["serve", "--model", models.chatml, "--api-key", "sk-both", "--no-auth", "--port", "0", "--threads", "1"]);
        while (!output().stdout.includes("\n"))
            await new Promise((resolve) => setTimeout(resolve, 20));
        const url = /listening on (\S+)/.exec(output().stdout)![1]!;
        assert.match(output().stderr, /auth: on \(1 key given.*--no-auth ignored\)/);
        assert.doesNotMatch(output().stderr, /auth: disabled/);
        assert.equal((await fetch(`${url}/models`)).status, 401);
        assert.equal((await fetch(`${url}/models`, {headers: {authorization: "Bearer sk-both"}})).status, 200);
        child.kill("SIGTERM");
        assert.equal(await exited, 0);
    });

    it("a second server on the same data folder fails before it loads the model", async () => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-shared-data-"));
        const first = run(["serve", "--model", models.chatml, "--api-key", "sk-a", "--port", "0", "--threads", "1", "--data-dir", dataDir]);
        while (!first.output().stdout.includes("\n"))
            await new Promise((resolve) => setTimeout(resolve, 20));
        const second = run([
            "serve", "--model", models.chatml, "--api-key", "sk-b", "--port", "0", "--threads", "1", "--data-dir", dataDir
        ]);
        assert.equal(await second.exited, 1);
        assert.match(second.output().stderr, /in use by another Local Responses server/);
        assert.doesNotMatch(second.output().stderr, /model: loaded/);
        first.child.kill("SIGTERM");
        assert.equal(await first.exited, 0);
    });
});
