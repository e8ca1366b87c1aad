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
});
