import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {NotFoundError} from "openai";
import {assertValidResponse} from "../../helpers/conformance.js";
import {useTestServer} from "../../helpers/testServer.js";

describe("stored responses: retrieve, delete, input_items, input_tokens, chains", () => {
    const server = useTestServer();

    it("retrieves a stored response, then deletes it: 404 everywhere afterwards", async () => {
        const created = await server.client.responses.create({model: "m", input: "Hello", max_output_tokens: 6});
        const retrieved = await server.client.responses.retrieve(created.id);
        assertValidResponse(retrieved);
        assert.deepEqual(retrieved, created);

        const deleted = await server.fetch(`/v1/responses/${created.id}`, {method: "DELETE"});
        assert.deepEqual(await deleted.json(), {id: created.id, object: "response.deleted", deleted: true});
        await assert.rejects(server.client.responses.retrieve(created.id), NotFoundError);
        await assert.rejects(server.client.responses.delete(created.id), NotFoundError);
        await assert.rejects(server.client.responses.inputItems.list(created.id), NotFoundError);
        await assert.rejects(server.client.responses.create({model: "m", input: "x", previous_response_id: created.id}), NotFoundError);
    });

    it("lists input items in both orders with stable ids, paginating with limit/after (SDK auto-pagination)", async () => {
        const input = Array.from({length: 7}, (_value, index) => ({role: "user" as const, content: `message ${index}`}));
        const created = await server.client.responses.create({model: "m", input, max_output_tokens: 2});

        const asc: string[] = [];
        for await (const item of server.client.responses.inputItems.list(created.id, {order: "asc", limit: 3}))
            asc.push(item.id!);
        assert.equal(asc.length, 7);
        assert.equal(new Set(asc).size, 7, "ids are unique");

        const desc: string[] = [];
        for await (const item of server.client.responses.inputItems.list(created.id, {limit: 2}))
            desc.push(item.id!);
        assert.deepEqual(desc, [...asc].reverse(), "default order is desc");

        const page = await server.client.responses.inputItems.list(created.id, {order: "asc", limit: 3, after: asc[2]});
        assert.deepEqual(page.data.map((item) => item.id), asc.slice(3, 6));
        assert.equal(page.has_more, true);

        const again: string[] = [];
        for await (const item of server.client.responses.inputItems.list(created.id, {order: "asc", limit: 100}))
            again.push(item.id!);
        assert.deepEqual(again, asc, "ids are stable across listings");
    });

    it("input_items of a chained response list the full history, excluding its own output", async () => {
        const first = await server.client.responses.create({model: "m", input: "one", max_output_tokens: 3});
        const second = await server.client.responses.create({
            model: "m", input: "two", previous_response_id: first.id, max_output_tokens: 3
        });
        const items = (await server.client.responses.inputItems.list(second.id, {order: "asc"})).data;
        const firstInput = (await server.client.responses.inputItems.list(first.id, {order: "asc"})).data;
        assert.deepEqual(items.map((item) => item.id), [
            ...firstInput.map((item) => item.id),
            ...first.output.map((item) => item.id),
            items.at(-1)!.id
        ]);
        assert.equal(items.length, firstInput.length + first.output.length + 1);
        assert.equal(items.some((item) => second.output.some((out) => out.id === item.id)), false);
    });

    it("counts input tokens of the rendered input, previous_response_id included", async () => {
        const short = await server.client.responses.inputTokens.count({model: "m", input: "Hi"});
        assert.equal(short.object, "response.input_tokens");
        assert.ok(short.input_tokens > 0);

        const created = await server.client.responses.create({model: "m", input: "Hi", max_output_tokens: 5});
        const chained = await server.client.responses.inputTokens.count({model: "m", input: "Hi", previous_response_id: created.id});
        assert.ok(chained.input_tokens > short.input_tokens + created.usage!.output_tokens - 1);
        // The count matches what generation reports as input tokens.
        const next = await server.client.responses.create({
            model: "m", input: "Hi", previous_response_id: created.id, max_output_tokens: 1
        });
        assert.equal(next.usage!.input_tokens, chained.input_tokens);
    });

    it("a three-turn previous_response_id chain reuses the KV cache: turns 2 and 3 report cached tokens", async () => {
        const turn1 = await server.client.responses.create({
            model: "m", input: "Tell me a story about a bird.", max_output_tokens: 20, instructions: "Tell stories."
        });
        const turn2 = await server.client.responses.create({
            model: "m", input: "What happened next?", previous_response_id: turn1.id, max_output_tokens: 20
        });
        const turn3 = await server.client.responses.create({
            model: "m", input: "And then?", previous_response_id: turn2.id, max_output_tokens: 20
        });
        for (const turn of [turn2, turn3]) {
            assertValidResponse(turn);
            const cached = turn.usage!.input_tokens_details.cached_tokens;
            assert.ok(cached > 0, `cached_tokens ${cached}`);
            assert.ok(cached < turn.usage!.input_tokens);
        }
        assert.equal(turn2.instructions, null, "instructions are not inherited");
        assert.ok(turn3.usage!.input_tokens > turn2.usage!.input_tokens);
        // Turn 3's prompt contains turn 2's whole prompt and answer: nearly all of it is cached.
        assert.ok(turn3.usage!.input_tokens_details.cached_tokens >= turn2.usage!.input_tokens);
    });
});
