import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {serveCli, type CliServer} from "../../helpers/cliServer.js";
import {capturesDir, sharedDir} from "../../helpers/paths.js";
import {stateFiles, waitForStates} from "../../helpers/promptStates.js";
import {syntheticModel} from "../../helpers/syntheticModel.js";

/**
 * Issue 39 item 1, as the agents meet it: Codex's captured first request (`store: false`) and Claude Code's (Messages,
 * stateless) are answered, the server is killed with `kill -9` and started again on the same data folder, and the
 * agent's next turn (one more exchange) finds its prefix on disk: ≥ 95 % of the shared prefix cached and its first
 * token many times faster than cold; another key gets nothing of it. The model is the two-layer synthetic body with
 * Qwen2's real tokenizer and template, so the prompts have a real model's token counts (the SmolLM2 body's cold Codex
 * prompt takes minutes on a CI machine: `npm run bench:restart` gives that figure).
 */
const key = "sk-agent-restart-0123456789";
const otherKey = "sk-agent-restart-other-98765";
const codexCapture = JSON.parse(fs.readFileSync(path.join(capturesDir, "codex-request.json"), "utf8")) as Record<string, unknown>;
/** The captured HTTP request of Claude Code (method, url, headers, body): its body. */
const claudeCapture = (JSON.parse(fs.readFileSync(path.join(sharedDir, "reference/anthropic/claude-code-request.json"), "utf8")) as
    {body: Record<string, unknown>}).body;

type Server = CliServer;

/** The headless server on a data folder, both keys accepted, one sequence of 32k. */
function serve(model: string, dataDir: string, keyFile: string): Promise<Server> {
    return serveCli(["--model", model, "--api-key-file", keyFile, "--threads", "2", "--parallel", "1", "--context-size", "32768",
        "--data-dir", dataDir]);
}

/** `kill -9`: nothing is flushed or closed; what is on disk is what the answers left there. */
async function killHard(server: Server): Promise<void> {
    const exited = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGKILL");
    await exited;
}

type Timed<T> = {body: T, ms: number};

async function post<T>(server: Server, route: string, body: unknown, headers: Record<string, string>): Promise<Timed<T>> {
    const started = performance.now();
    const response = await fetch(`${server.url}${route.replace(/^\/v1/, "")}`, {
        method: "POST", headers: {"content-type": "application/json", ...headers}, body: JSON.stringify(body)
    });
    const text = await response.text();
    const ms = performance.now() - started;
    assert.equal(response.status, 200, text);
    return {body: JSON.parse(text) as T, ms};
}

type ResponsesUsage = {usage: {input_tokens: number, input_tokens_details: {cached_tokens: number}}};
type MessagesUsage = {usage: {input_tokens: number, cache_read_input_tokens: number}};

/** One agent's two turns across a hard restart, in the agent's own protocol: the prompt's and the cached tokens, and times. */
type Agent = {
    first: (server: Server, as: string) => Promise<Timed<{prompt: number, cached: number}>>,
    next: (server: Server, as: string) => Promise<Timed<{prompt: number, cached: number}>>
};

const codex: Agent = {
    first: async (server, as) => responses(server, as, codexCapture.input as unknown[]),
    next: async (server, as) => responses(server, as, [...codexCapture.input as unknown[],
        {type: "message", role: "assistant", content: [{type: "output_text", text: "I will look at the files first."}]},
        {type: "message", role: "user", content: [{type: "input_text", text: "Now open the README and summarize it."}]}])
};

async function responses(server: Server, as: string, input: unknown[]): Promise<Timed<{prompt: number, cached: number}>> {
    // The captured body as Codex sends it (store: false), answered in one body: its time is the first token's, and one more.
    const {body, ms} = await post<ResponsesUsage>(server, "/v1/responses",
        {...codexCapture, input, stream: false, max_output_tokens: 1, temperature: 0}, {authorization: `Bearer ${as}`});
    return {body: {prompt: body.usage.input_tokens, cached: body.usage.input_tokens_details.cached_tokens}, ms};
}

const claudeCode: Agent = {
    first: async (server, as) => messages(server, as, claudeCapture.messages as unknown[]),
    next: async (server, as) => messages(server, as, [...claudeCapture.messages as unknown[],
        {role: "assistant", content: [{type: "text", text: "I will look at the files first."}]},
        {role: "user", content: [{type: "text", text: "Now open the README and summarize it."}]}])
};

async function messages(server: Server, as: string, turns: unknown[]): Promise<Timed<{prompt: number, cached: number}>> {
    const {body, ms} = await post<MessagesUsage>(server, "/v1/messages",
        {...claudeCapture, messages: turns, stream: false, max_tokens: 1, temperature: 0},
        {"x-api-key": as, "anthropic-version": "2023-06-01"});
    return {body: {prompt: body.usage.input_tokens + body.usage.cache_read_input_tokens, cached: body.usage.cache_read_input_tokens}, ms};
}

describe("an agent's session survives kill -9 (real engine, real captures, Qwen2's tokenizer)", () => {
    let model: string;
    let keyFile: string;
    const folders: string[] = [];
    before(async () => {
        model = await syntheticModel("tiny-64", "qwen2");
        const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-agent-restart-keys-"));
        folders.push(keyDir);
        keyFile = path.join(keyDir, "keys");
        fs.writeFileSync(keyFile, `${key}\n${otherKey}\n`, {mode: 0o600});
    });
    after(() => {
        for (const folder of folders)
            fs.rmSync(folder, {recursive: true, force: true});
    });

    for (const [name, agent] of [["Codex", codex], ["Claude Code", claudeCode]] as const) {
        it(`${name}: the next turn after a restart finds ≥ 95 % of its prefix on disk, first token ≥ 10× faster than cold`, async () => {
            const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-agent-restart-"));
            folders.push(dataDir);
            const first = await serve(model, dataDir, keyFile);
            let cold;
            try {
                cold = await agent.first(first, key);
                assert.equal(cold.body.cached, 0, "a fresh server has nothing cached");
                await waitForStates(dataDir, 1);
            } finally {
                await killHard(first);
            }
            assert.equal(stateFiles(dataDir).length, 1, "the agent's prompt was saved although it is not stored");

            const restarted = await serve(model, dataDir, keyFile);
            try {
                const other = await agent.next(restarted, otherKey);
                assert.equal(other.body.cached, 0, "another key loads nothing of it");
                const next = await agent.next(restarted, key);
                // The shared prefix is the first prompt less its last few tokens (the generation prompt the next turn replaces).
                const shared = cold.body.prompt - 8;
                const ratio = cold.ms / next.ms;
                console.log(`${name}: cold ${cold.body.prompt} tokens in ${cold.ms.toFixed(0)} ms; after kill -9 `
                    + `${next.body.cached} of ${next.body.prompt} cached, ${next.ms.toFixed(0)} ms (${ratio.toFixed(1)}× faster)`);
                assert.ok(next.body.cached >= 0.95 * shared, `${next.body.cached} of the ~${shared}-token shared prefix cached`);
                assert.ok(ratio >= 10, `first token ${ratio.toFixed(1)}× faster than cold (cold ${cold.ms.toFixed(0)} ms, `
                    + `after the restart ${next.ms.toFixed(0)} ms)`);
            } finally {
                await killHard(restarted);
            }
        });
    }
});
