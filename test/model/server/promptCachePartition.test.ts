import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {describe, it} from "node:test";
import {stateFiles, waitForStates} from "../../helpers/promptStates.js";
import {startTestServer, type TestServer, type TestServerOptions} from "../../helpers/testServer.js";

const keyA = "sk-cache-alpha-0123456789";
const keyB = "sk-cache-bravo-9876543210";
/** A long shared system prompt (well over the prompt cache's 256-token minimum below), as a coding agent sends. */
const instructions = "You are key A's coding agent. "
    + Array.from({length: 60}, (_, index) => `Private rule ${index}: the codename is OWL-${index * 7}.`).join(" ");

type Usage = {input_tokens: number, input_tokens_details: {cached_tokens: number}};

async function ask(server: TestServer, key: string, question: string,
    extra: Record<string, unknown> = {}): Promise<{id: string, usage: Usage}> {
    const response = await server.fetch("/v1/responses", {
        method: "POST",
        headers: {authorization: `Bearer ${key}`},
        json: {model: "m", instructions, input: question, max_output_tokens: 2, temperature: 0, ...extra}
    });
    assert.equal(response.status, 200, await response.clone().text());
    return await response.json() as {id: string, usage: Usage};
}

function durable(dataDir: string, extra: TestServerOptions = {}): TestServerOptions {
    return {
        apiKeys: [keyA, keyB], contextSize: 4096, parallel: 1, storage: {kind: "durable", dataDir, promptCacheMinTokens: 256}, ...extra
    };
}


describe("the prompt cache is partitioned by API key (real engine, stories260K)", () => {
    it("in memory: key B never reuses, times or counts key A's prefix on the sequence A left; A does", async () => {
        const server = await startTestServer({apiKeys: [keyA, keyB], contextSize: 4096, parallel: 1});
        try {
            const first = await ask(server, keyA, "What is rule 3?");
            assert.ok(first.usage.input_tokens > 300, `a long prompt (${first.usage.input_tokens} tokens)`);
            const probe = await ask(server, keyB, "What is rule 4?");
            assert.equal(probe.usage.input_tokens_details.cached_tokens, 0, "key B sees nothing of key A's prompt");
            const again = await ask(server, keyB, "What is rule 5?");
            assert.ok(again.usage.input_tokens_details.cached_tokens > probe.usage.input_tokens - 20, "B reuses its own prefix");
        } finally {
            await server.close();
        }
    });

    it("with --shared-prompt-cache keys that trust each other share prefixes", async () => {
        const server = await startTestServer({apiKeys: [keyA, keyB], contextSize: 4096, parallel: 1, sharedPromptCache: true});
        try {
            const first = await ask(server, keyA, "What is rule 3?");
            const shared = await ask(server, keyB, "What is rule 4?");
            assert.ok(shared.usage.input_tokens_details.cached_tokens > first.usage.input_tokens - 20,
                `${shared.usage.input_tokens_details.cached_tokens} of ${shared.usage.input_tokens} shared`);
        } finally {
            await server.close();
        }
    });

    it("on disk, after a restart: key B's cached_tokens is 0 on key A's saved prefix, key A's is not", async () => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-partition-"));
        const first = await startTestServer(durable(dataDir));
        await ask(first, keyA, "What is rule 3?");
        await first.close();
        assert.equal(stateFiles(dataDir).length, 1, "key A's prompt state was saved");

        const restarted = await startTestServer(durable(dataDir));
        try {
            const fromB = await ask(restarted, keyB, "What is rule 10?", {store: false});
            assert.equal(fromB.usage.input_tokens_details.cached_tokens, 0, "key B never loads key A's state");
            // The one sequence now holds B's prompt, which A may not use: A's prefix can only come from its state on disk.
            const fromA = await ask(restarted, keyA, "What is rule 12?");
            assert.ok(fromA.usage.input_tokens_details.cached_tokens > fromA.usage.input_tokens - 40,
                `key A's own state loads (${fromA.usage.input_tokens_details.cached_tokens} of ${fromA.usage.input_tokens})`);
        } finally {
            await restarted.close();
        }
    });

    it("with --prompt-cache-retention in_memory, a store: false prompt is never written to disk; a stored one is", async () => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-nostore-"));
        const server = await startTestServer(durable(dataDir, {promptCacheRetention: "in_memory"}));
        try {
            await ask(server, keyA, "What is rule 3?", {store: false});
            await ask(server, keyA, "What is rule 9? Answer at length, please, with every detail.", {store: false});
        } finally {
            await server.close();
        }
        assert.deepEqual(stateFiles(dataDir), [], "no state file for store: false");
        assert.equal(fs.existsSync(path.join(dataDir, "prompt-states")) ? fs.readdirSync(path.join(dataDir, "prompt-states")).length : 0, 0,
            "nor a manifest holding its tokens");

        const stored = await startTestServer(durable(dataDir, {promptCacheRetention: "in_memory"}));
        await ask(stored, keyA, "What is rule 3?");
        await stored.close();
        assert.equal(stateFiles(dataDir).length, 1, "the same prompt stored is saved (the test can see a save)");
    });

    it("a key's DELETE of a stored response removes its prompt states; the other key's stay", async () => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-forget-"));
        const server = await startTestServer(durable(dataDir, {parallel: 2}));
        try {
            const fromA = await ask(server, keyA, "What is rule 3?");
            await ask(server, keyB, "What is rule 3?");
            await waitForStates(dataDir, 2);
            assert.equal(stateFiles(dataDir).length, 2);
            const deleted = await server.fetch(`/v1/responses/${fromA.id}`, {method: "DELETE", headers: {authorization: `Bearer ${keyA}`}});
            assert.equal(deleted.status, 200);
            const deadline = Date.now() + 5_000;
            while (stateFiles(dataDir).length !== 1 && Date.now() < deadline)
                await new Promise((resolve) => setTimeout(resolve, 20));
            assert.equal(stateFiles(dataDir).length, 1, "key A's state went, key B's stayed");
        } finally {
            await server.close();
        }
    });
});
