import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {setTimeout as delay} from "node:timers/promises";
import {startTestServer, useTestServer} from "../../helpers/testServer.js";

describe("store bounds through the server: entries, bytes, TTL", () => {
    it("evicts the least recently used response beyond --responses-store-max-entries", async () => {
        const server = await startTestServer({store: {maxEntries: 2}});
        try {
            const ids = [];
            for (const input of ["one", "two", "three"])
                ids.push((await server.client.responses.create({model: "m", input, max_output_tokens: 2})).id);
            assert.equal((await server.fetch(`/v1/responses/${ids[0]}`)).status, 404);
            assert.equal((await server.fetch(`/v1/responses/${ids[1]}`)).status, 200);
            assert.equal((await server.fetch(`/v1/responses/${ids[2]}`)).status, 200);
            const chain = await server.fetch("/v1/responses",
                {method: "POST", json: {model: "m", input: "x", previous_response_id: ids[0]}});
            assert.equal(chain.status, 404, "an evicted id is unknown as previous_response_id too");
        } finally {
            await server.close();
        }
    });

    it("evicts by --responses-store-max-bytes", async () => {
        const server = await startTestServer({store: {maxBytes: 9_000}});
        try {
            // ~2 KB of text each (a few hundred tokens): two fit the budget, three do not.
            const text = (word: string) => `${word} went to the park. `.repeat(90);
            const first = await server.client.responses.create({model: "m", input: text("Tom"), max_output_tokens: 2});
            const second = await server.client.responses.create({model: "m", input: text("Sue"), max_output_tokens: 2});
            // Reading the first makes the second the least recently used.
            assert.equal((await server.fetch(`/v1/responses/${first.id}`)).status, 200);
            const third = await server.client.responses.create({model: "m", input: text("Max"), max_output_tokens: 2});
            assert.equal((await server.fetch(`/v1/responses/${second.id}`)).status, 404, "the least recently used went");
            assert.equal((await server.fetch(`/v1/responses/${first.id}`)).status, 200);
            assert.equal((await server.fetch(`/v1/responses/${third.id}`)).status, 200);
            assert.ok(server.host.store.stats().bytes <= 9_000);
            assert.equal(server.host.store.stats().evictions, 1);
        } finally {
            await server.close();
        }
    });

    it("expires responses after --responses-store-ttl-secs", async () => {
        const server = await startTestServer({store: {ttlSeconds: 1}});
        try {
            const created = await server.client.responses.create({model: "m", input: "hi", max_output_tokens: 2});
            assert.equal((await server.fetch(`/v1/responses/${created.id}`)).status, 200);
            await delay(1100);
            assert.equal((await server.fetch(`/v1/responses/${created.id}`)).status, 404);
        } finally {
            await server.close();
        }
    });
});

describe("generation queue and client disconnects", () => {
    const server = useTestServer({parallel: 1, queueLimit: 1});

    it("a full wait queue gets 503 before any generation; queued requests are served in turn", async () => {
        const long = {model: "m", input: "Tell me a very long story.", max_output_tokens: 1500, temperature: 0};
        const running = server.fetch("/v1/responses", {method: "POST", json: long});
        while (server.host.engine.stats().sequencesBusy === 0)
            await delay(1);
        const queued = server.fetch("/v1/responses", {method: "POST", json: {...long, max_output_tokens: 4}});
        while (server.host.engine.stats().queueDepth === 0)
            await delay(1);
        const refused = await server.fetch("/v1/responses", {method: "POST", json: {...long, max_output_tokens: 4}});
        assert.equal(refused.status, 503);
        assert.equal(((await refused.json()) as {error: {code: string}}).error.code, "server_overloaded");
        assert.equal((await running).status, 200);
        assert.equal((await queued).status, 200);
    });

    it("a client that disconnects mid-stream stops the generation at once; nothing is stored", async () => {
        const generations: {stopReason: string, outputTokens: number}[] = [];
        const unsubscribe = server.host.engine.onGeneration(
            (summary) => generations.push({stopReason: summary.stopReason, outputTokens: summary.usage.outputTokens})
        );
        const controller = new AbortController();
        const res = await server.fetch("/v1/responses", {
            method: "POST",
            json: {model: "m", input: "Tell me a very long story.", max_output_tokens: 1900, stream: true},
            signal: controller.signal
        });
        const reader = res.body!.getReader();
        let seen = "";
        while (!seen.includes("response.output_text.delta"))
            seen += new TextDecoder().decode((await reader.read()).value);
        const id = /"id":"(resp_[0-9a-f]+)"/.exec(seen)![1]!;
        controller.abort();
        while (generations.length === 0)
            await delay(5);
        unsubscribe();
        assert.equal(generations[0]!.stopReason, "abort");
        assert.ok(generations[0]!.outputTokens < 1900, `stopped after ${generations[0]!.outputTokens} tokens`);
        assert.equal(server.host.engine.stats().sequencesBusy, 0, "the sequence is free again");
        assert.equal((await server.fetch(`/v1/responses/${id}`)).status, 404, "a disconnected generation is not stored");
    });
});
