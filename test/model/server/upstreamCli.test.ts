import assert from "node:assert/strict";
import {spawn} from "node:child_process";
import {once} from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {describe, it} from "node:test";
import {parseCliOptions} from "../../../src/host/cliOptions.js";
import {repoRoot} from "../../helpers/paths.js";
import {chunk, scriptedUpstream, sseHead} from "../../helpers/scriptedUpstream.js";

describe("--engine upstream flags", () => {
    it("parses the upstream flags and their environment variables", () => {
        const {config} = parseCliOptions(["--engine", "upstream", "--upstream", "http://a:8000/v1", "--upstream", "http://b:8000", "--upstream-model", "qwen", "--upstream-timeout-secs", "30"]);
        assert.equal(config.engine, "upstream");
        assert.deepEqual(config.upstream.urls, ["http://a:8000/v1", "http://b:8000"]);
        assert.equal(config.upstream.model, "qwen");
        assert.equal(config.upstream.timeoutSeconds, 30);
        const fromEnv = parseCliOptions([], {LOCAL_RESPONSES_ENGINE: "upstream", LOCAL_RESPONSES_UPSTREAM: "http://a:1, http://b:2", LOCAL_RESPONSES_UPSTREAM_API_KEY: "k"});
        assert.deepEqual(fromEnv.config.upstream.urls, ["http://a:1", "http://b:2"]);
        assert.equal(fromEnv.config.upstream.apiKey, "k");
        assert.equal(parseCliOptions([]).config.engine, "local");
    });

    it("refuses an upstream engine without upstreams, a bad URL and an unknown engine", () => {
        assert.throws(() => parseCliOptions(["--engine", "upstream"]), /needs at least one --upstream/);
        assert.throws(() => parseCliOptions(["--engine", "upstream", "--upstream", "ftp://x"]), /http\(s\) URL/);
        assert.throws(() => parseCliOptions(["--engine", "cloud"]), /local or upstream/);
    });
});

describe("headless CLI with --engine upstream (dist/cli.js)", () => {
    it("serves from the upstream, sends the upstream key from its file, and never prints it", async () => {
        const upstream = await scriptedUpstream(() => (_req, res) => {
            sseHead(res);
            res.end(`${chunk({content: "upstream says hi"}, "stop")}data: [DONE]\n\n`);
        });
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-upstream-"));
        const upstreamKey = "sk-upstream-secret-4242";
        fs.writeFileSync(path.join(dir, "upstream-key"), `${upstreamKey}\n`, {mode: 0o600});
        const child = spawn(process.execPath, [path.join(repoRoot, "dist/cli.js"), "serve", "--engine", "upstream", "--upstream",
            upstream.url,
            "--upstream-api-key-file", path.join(dir, "upstream-key"), "--api-key", "sk-client", "--port", "0", "--store", "memory"], {
            env: {...process.env, LOCAL_RESPONSES_DATA_DIR: dir}, stdio: ["ignore", "pipe", "pipe"]
        });
        // Listened for at once: a child that fails to start exits before the test would wait for it.
        const exited = once(child, "exit");
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (data) => (stdout += data));
        child.stderr.on("data", (data) => (stderr += data));
        try {
            const started = Date.now();
            while (!stdout.includes("\n") && child.exitCode == null && Date.now() - started < 60_000)
                await new Promise((resolve) => setTimeout(resolve, 20));
            const match = /^listening on (http:\/\/127\.0\.0\.1:\d+\/v1)\n$/.exec(stdout);
            assert.ok(match, `stdout: ${stdout}\nstderr: ${stderr}`);
            const models = await (await fetch(`${match[1]}/models`,
                {headers: {authorization: "Bearer sk-client"}})).json() as {data: {id: string}[]};
            assert.equal(models.data[0]!.id, "scripted");
            const response = await (await fetch(`${match[1]}/responses`, {
                method: "POST", headers: {authorization: "Bearer sk-client", "content-type": "application/json"},
                body: JSON.stringify({model: "scripted", input: "hi"})
            })).json() as {output_text?: string, output: {content: {text: string}[]}[]};
            assert.equal(response.output[0]!.content[0]!.text, "upstream says hi");
            assert.equal(upstream.headers.at(-1)!.authorization, `Bearer ${upstreamKey}`);
            assert.match(stderr, /upstream: scripted on http:\/\/127\.0\.0\.1:\d+ \(up\)/);
        } finally {
            child.kill("SIGTERM");
            await exited;
            await upstream.close();
        }
        assert.ok(!stdout.includes(upstreamKey) && !stderr.includes(upstreamKey), "the upstream key is never printed");
    });
});
