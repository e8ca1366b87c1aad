import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {ownerOfKey} from "../../../src/server/middleware/auth.js";
import {longGeneration, pollUntil} from "../../helpers/background.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

const keyA = "sk-key-alpha-0123456789";
const keyB = "sk-key-bravo-9876543210";
const secretPrompt = "The secret launch code is PURPLE-OCTOPUS.";

describe("isolation between API keys on every stateful endpoint", () => {
    let server: TestServer;
    const as = (key: string, path: string, init: RequestInit & {json?: unknown} = {}) =>
        server.fetch(path, {...init, headers: {authorization: `Bearer ${key}`, ...(init.headers as Record<string, string> ?? {})}});
    before(async () => {
        server = await startTestServer({apiKeys: [keyA, keyB], contextSize: 4096});
    });
    after(() => server.close());

    it("responses, background jobs and their streams: the other key gets 404 everywhere", async () => {
        const stored = await (await as(keyA, "/v1/responses",
            {method: "POST", json: {model: "m", input: secretPrompt, max_output_tokens: 4}})).json();
        const job = await (await as(keyA, "/v1/responses", {method: "POST", json: {...longGeneration(), background: true}})).json();
        await pollUntil(server, job.id, (response) => response.status === "in_progress", keyA);

        for (const id of [stored.id, job.id]) {
            assert.equal((await as(keyB, `/v1/responses/${id}`)).status, 404, `retrieve ${id}`);
            assert.equal((await as(keyB, `/v1/responses/${id}?stream=true`)).status, 404, `stream ${id}`);
            assert.equal((await as(keyB, `/v1/responses/${id}/input_items`)).status, 404, `input items ${id}`);
            assert.equal((await as(keyB, `/v1/responses/${id}/cancel`, {method: "POST"})).status, 404, `cancel ${id}`);
            assert.equal((await as(keyB, `/v1/responses/${id}`, {method: "DELETE"})).status, 404, `delete ${id}`);
        }
        const chain = await as(keyB, "/v1/responses", {method: "POST", json: {model: "m", input: "x", previous_response_id: stored.id}});
        assert.equal(chain.status, 404);
        const reference = await as(keyB, "/v1/responses",
            {method: "POST", json: {model: "m", input: [{type: "item_reference", id: stored.output[0].id}]}});
        assert.equal(reference.status, 404, "items of another key cannot be referenced");

        // The same key in its other header form shares access.
        const viaHeader = await server.fetch(`/v1/responses/${job.id}`, {headers: {"x-api-key": keyA}});
        assert.equal(viaHeader.status, 200);
        const cancelled = await server.fetch(`/v1/responses/${job.id}/cancel`, {method: "POST", headers: {"x-api-key": keyA}});
        assert.equal((await cancelled.json()).status, "cancelled");
        assert.equal((await as(keyA, `/v1/responses/${stored.id}`)).status, 200);
    });

    it("conversations: the other key gets 404 on every endpoint and cannot use it on create", async () => {
        const conversation = await (await as(keyA, "/v1/conversations",
            {method: "POST", json: {items: [{role: "user", content: secretPrompt}]}})).json();
        const items = await (await as(keyA, `/v1/conversations/${conversation.id}/items`)).json();
        const itemId = items.data[0].id;
        const attempts: Array<[string, string, unknown?]> = [
            ["GET", `/v1/conversations/${conversation.id}`],
            ["POST", `/v1/conversations/${conversation.id}`, {metadata: {a: "b"}}],
            ["GET", `/v1/conversations/${conversation.id}/items`],
            ["POST", `/v1/conversations/${conversation.id}/items`, {items: [{role: "user", content: "x"}]}],
            ["GET", `/v1/conversations/${conversation.id}/items/${itemId}`],
            ["DELETE", `/v1/conversations/${conversation.id}/items/${itemId}`],
            ["DELETE", `/v1/conversations/${conversation.id}`],
            ["POST", "/v1/responses", {model: "m", input: "x", conversation: conversation.id}]
        ];
        for (const [method, path, json] of attempts)
            assert.equal((await as(keyB, path, {method, json})).status, 404, `${method} ${path}`);
        const still = await (await as(keyA, `/v1/conversations/${conversation.id}/items`)).json();
        assert.equal(still.data.length, 1, "nothing the other key tried changed it");
    });

    it("status and metrics carry no key material, owner ids or prompt text", async () => {
        for (const path of ["/v1/status", "/metrics"]) {
            const text = await (await as(keyA, path)).text();
            for (const secret of [keyA, keyB, ownerOfKey(keyA), ownerOfKey(keyB), "PURPLE-OCTOPUS"])
                assert.ok(!text.includes(secret), `${path} leaks ${secret.slice(0, 8)}…`);
        }
    });

    it("a key sees its own generations and tokens and the server's occupancy, never the other key's traffic", async () => {
        const inputTokens = async (key: string) => [...(await (await as(key, "/metrics")).text())
            .matchAll(/^local_responses_tokens_total\{protocol="chat_completions",kind="input"\} (\d+)/gm)]
            .reduce((sum, match) => sum + Number(match[1]), 0);
        const chatGenerations = async (key: string) =>
            (await (await as(key, "/v1/status")).json()).protocols.chat_completions?.generations ?? 0;
        const [aBefore, bBefore, bGenerationsBefore] = [await inputTokens(keyA), await inputTokens(keyB), await chatGenerations(keyB)];
        const answer = await (await as(keyA, "/v1/chat/completions", {method: "POST",
            json: {model: "m", max_tokens: 2, messages: [{role: "user", content: "A prompt of some length, ".repeat(20)}]}})).json();
        const promptTokens = answer.usage.prompt_tokens;
        assert.ok(promptTokens > 20);
        assert.equal(await inputTokens(keyA) - aBefore, promptTokens, "the key's own prompt tokens are counted for it");
        assert.equal(await inputTokens(keyB), bBefore, "the other key sees nothing of them");
        assert.equal(await chatGenerations(keyB), bGenerationsBefore);
        const status = await (await as(keyB, "/v1/status")).json();
        assert.equal(status.view, "own");
        assert.equal(typeof status.engine.sequences_total, "number", "the occupancy is everyone's to see");
        const metricsOfB = await (await as(keyB, "/metrics")).text();
        for (const family of ["http_requests_total", "time_to_first_token_seconds", "http_request_duration_seconds",
            "editor_suggestions_total"])
            assert.ok(!metricsOfB.includes(`local_responses_${family}`), `${family} is traffic: not shown`);
        assert.match(metricsOfB, /^local_responses_queue_depth 0$/m);
    });
});

describe("--status-all-keys: every key sees the server-wide figures", () => {
    let server: TestServer;
    before(async () => (server = await startTestServer({apiKeys: [keyA, keyB], statusAllKeys: true})));
    after(() => server.close());

    it("the other key's generation shows in /v1/status and /metrics", async () => {
        await server.fetch("/v1/chat/completions", {method: "POST", headers: {authorization: `Bearer ${keyA}`},
            json: {model: "m", max_tokens: 2, messages: [{role: "user", content: "hi"}]}});
        const status = await (await server.fetch("/v1/status", {headers: {authorization: `Bearer ${keyB}`}})).json();
        assert.equal(status.view, "all");
        assert.equal(status.protocols.chat_completions.generations, 1);
        const metrics = await (await server.fetch("/metrics", {headers: {authorization: `Bearer ${keyB}`}})).text();
        assert.match(metrics, /local_responses_http_requests_total/);
    });
});
