import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {describe, it} from "node:test";
import {stateFiles, waitForStates} from "../../helpers/promptStates.js";
import {startTestServer, type TestServer, type TestServerOptions} from "../../helpers/testServer.js";

/**
 * Issue 39 item 1: Codex sends `store: false` on every request and Claude Code's Messages are stateless, so when only
 * stored responses' prompts went to the on-disk prompt cache, a restart cost every agent session its whole prompt.
 * Now `prompt_cache_retention` decides (`24h`: saved, `in_memory`: never), a Messages `cache_control` breakpoint asks
 * for `24h`, and a request that says nothing gets the operator's default (`--prompt-cache-retention`, 24h).
 */
const key = "sk-retention-0123456789";
const otherKey = "sk-retention-other-987654";
/** An agent's long, unchanging prefix (instructions and tools in a real one), well over the cache's 256-token minimum. */
const instructions = "You are a coding agent in a repository. "
    + Array.from({length: 60}, (_, index) => `Rule ${index}: keep file ${index} formatted, tested and reviewed.`).join(" ");

function durable(dataDir: string, extra: TestServerOptions = {}): TestServerOptions {
    return {
        apiKeys: [key, otherKey], contextSize: 4096, parallel: 1, storage: {kind: "durable", dataDir, promptCacheMinTokens: 256}, ...extra
    };
}


type Usage = {input_tokens: number, input_tokens_details: {cached_tokens: number}};

/** A Codex-shaped turn: `store: false`, the same instructions, the conversation so far as input. */
async function codexTurn(server: TestServer, input: unknown[], extra: Record<string, unknown> = {}, as = key) {
    const response = await server.fetch("/v1/responses", {method: "POST", headers: {authorization: `Bearer ${as}`},
        json: {model: "m", instructions, input, store: false, max_output_tokens: 2, temperature: 0, ...extra}});
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json() as {usage: Usage}).usage;
}

const firstTurn = [{role: "user", content: "List the files of the project."}];
const secondTurn = [...firstTurn, {role: "assistant", content: "There are three."}, {role: "user", content: "Open the first."}];

describe("prompt_cache_retention decides what survives a restart (real engine, stories260K)", () => {
    it("a store: false agent turn is saved by default: after a restart the next turn loads it (≥ 95 % of the prefix cached)", async () => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-retention-"));
        const first = await startTestServer(durable(dataDir));
        const cold = await codexTurn(first, firstTurn);
        await first.close();
        assert.equal(stateFiles(dataDir).length, 1, "the store: false prompt was saved");

        const restarted = await startTestServer(durable(dataDir));
        try {
            const other = await codexTurn(restarted, secondTurn, {}, otherKey);
            assert.equal(other.input_tokens_details.cached_tokens, 0, "another key loads nothing of it");
            const next = await codexTurn(restarted, secondTurn);
            // The first turn's prompt, less its last tokens (the assistant turn's opening renders differently), is the shared prefix.
            const shared = cold.input_tokens - 8;
            assert.ok(next.input_tokens_details.cached_tokens >= 0.95 * shared,
                `${next.input_tokens_details.cached_tokens} of the ~${shared}-token shared prefix cached after the restart`);
        } finally {
            await restarted.close();
            fs.rmSync(dataDir, {recursive: true, force: true});
        }
    });

    it("in_memory leaves no file, even for a stored response; 24h saves under --prompt-cache-retention in_memory", async () => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-retention-mem-"));
        const server = await startTestServer(durable(dataDir));
        try {
            await codexTurn(server, firstTurn, {prompt_cache_retention: "in_memory", store: true});
        } finally {
            await server.close();
        }
        assert.deepEqual(stateFiles(dataDir), []);
        const operatorInMemory = await startTestServer(durable(dataDir, {promptCacheRetention: "in_memory"}));
        try {
            await codexTurn(operatorInMemory, firstTurn);
            await codexTurn(operatorInMemory, [{role: "user", content: "Another question, about the tests."}],
                {prompt_cache_retention: "24h"});
            await waitForStates(dataDir, 1);
        } finally {
            await operatorInMemory.close();
        }
        assert.equal(stateFiles(dataDir).length, 1, "only the request that asked for 24h was saved");
        fs.rmSync(dataDir, {recursive: true, force: true});
    });

    it("Messages: a cache_control breakpoint saves the prompt even when the operator keeps prompts in memory", async () => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-retention-messages-"));
        const server = await startTestServer(durable(dataDir, {promptCacheRetention: "in_memory"}));
        const post = (system: unknown) => server.fetch("/v1/messages", {method: "POST",
            headers: {"x-api-key": key, "anthropic-version": "2023-06-01"},
            json: {model: "m", max_tokens: 2, system, messages: [{role: "user", content: "Hello."}]}});
        try {
            assert.equal((await post(instructions)).status, 200);
            assert.equal(stateFiles(dataDir).length, 0, "no breakpoint: the operator's in_memory");
            assert.equal((await post([{type: "text", text: `${instructions} More.`, cache_control: {type: "ephemeral"}}])).status, 200);
            await waitForStates(dataDir, 1);
        } finally {
            await server.close();
        }
        assert.equal(stateFiles(dataDir).length, 1);
        fs.rmSync(dataDir, {recursive: true, force: true});
    });
});
