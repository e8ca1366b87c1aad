import assert from "node:assert/strict";
import {describe, it} from "node:test";
import OpenAI from "openai";
import {assertValidResponse} from "../../helpers/conformance.js";
import {isTerminal, pollUntil} from "../../helpers/background.js";
import {startTestServer, useTestServer} from "../../helpers/testServer.js";

describe("Conversations API and `conversation` on create (real engine, openai SDK)", () => {
    const server = useTestServer();

    it("creates, retrieves, updates and deletes conversations and their items", async () => {
        const conversation = await server.client.conversations.create({
            items: [{type: "message", role: "user", content: "Hello there."}],
            metadata: {topic: "greeting"}
        });
        assert.match(conversation.id, /^conv_/);
        assert.equal(conversation.object, "conversation");
        assert.deepEqual(conversation.metadata, {topic: "greeting"});
        assert.equal((await server.client.conversations.retrieve(conversation.id)).id, conversation.id);
        const updated = await server.client.conversations.update(conversation.id, {metadata: {topic: "changed"}});
        assert.deepEqual(updated.metadata, {topic: "changed"});

        const added = await server.client.conversations.items.create(conversation.id, {
            items: [{type: "message", role: "assistant", content: "Hi!"}, {type: "message", role: "user", content: "How are you?"}]
        });
        assert.equal(added.data.length, 2);
        const all = [];
        for await (const item of server.client.conversations.items.list(conversation.id, {order: "asc", limit: 1}))
            all.push(item);
        assert.equal(all.length, 3, "auto-pagination walks every item");
        assert.equal((all[0] as any).content[0].text, "Hello there.");

        const itemId = (all[1] as any).id;
        const item = await server.client.conversations.items.retrieve(itemId, {conversation_id: conversation.id});
        assert.equal((item as any).role, "assistant");
        const afterDelete = await server.client.conversations.items.delete(itemId, {conversation_id: conversation.id});
        assert.equal(afterDelete.id, conversation.id);
        await assert.rejects(server.client.conversations.items.retrieve(itemId, {conversation_id: conversation.id}), OpenAI.NotFoundError);

        const deleted = await server.client.conversations.delete(conversation.id);
        assert.deepEqual(deleted, {id: conversation.id, object: "conversation.deleted", deleted: true});
        await assert.rejects(server.client.conversations.retrieve(conversation.id), OpenAI.NotFoundError);
        await assert.rejects(server.client.conversations.items.list(conversation.id), OpenAI.NotFoundError);
    });

    it("carries a multi-turn conversation: each finished turn is appended and read back by the next", async () => {
        const conversation = await server.client.conversations.create({});
        const first = await server.client.responses.create({
            model: "m", input: "My dog is called Max.", conversation: conversation.id, max_output_tokens: 8
        });
        assertValidResponse(first);
        assert.deepEqual(first.conversation, {id: conversation.id});
        const afterFirst = await server.client.conversations.items.list(conversation.id, {order: "asc"});
        assert.equal(afterFirst.data.length, 1 + first.output.length, "the input and the output of the turn");

        const second = await server.client.responses.create({
            model: "m", input: "What is my dog called?", conversation: {id: conversation.id}, max_output_tokens: 8
        });
        assert.ok(second.usage!.input_tokens > first.usage!.input_tokens, "the second turn sees the first");
        const afterSecond = await server.client.conversations.items.list(conversation.id, {order: "asc", limit: 100});
        assert.equal(afterSecond.data.length, afterFirst.data.length + 1 + second.output.length);
        assert.equal((afterSecond.data.at(-1 - second.output.length) as any).content[0].text, "What is my dog called?");

        const job = await server.client.responses.create({
            model: "m", input: "And the cat?", conversation: conversation.id, max_output_tokens: 8, background: true
        });
        await pollUntil(server, job.id, isTerminal);
        const afterJob = await server.client.conversations.items.list(conversation.id, {order: "asc", limit: 100});
        assert.ok(afterJob.data.length > afterSecond.data.length, "a background turn is appended when it finishes");
    });

    it("refuses conversation with previous_response_id (400), an unknown conversation (404) and conversations when "
        + "disabled (400)", async () => {
        const conversation = await server.client.conversations.create({});
        const plain = await server.client.responses.create({model: "m", input: "hi", max_output_tokens: 2});
        const both = await server.fetch("/v1/responses",
            {method: "POST", json: {model: "m", input: "x", conversation: conversation.id, previous_response_id: plain.id}});
        assert.equal(both.status, 400);
        const unknown = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: "x", conversation: "conv_unknown"}});
        assert.equal(unknown.status, 404);
        const tooMany = await server.fetch(`/v1/conversations/${conversation.id}/items`,
            {method: "POST", json: {items: Array.from({length: 21}, () => ({role: "user", content: "x"}))}});
        assert.equal(tooMany.status, 400);

        const off = await startTestServer({
            conversations: {maxEntries: 0, maxBytes: 0, ttlSeconds: 0, ownerMaxEntries: 0, ownerMaxBytes: 0}
        });
        try {
            assert.equal((await off.fetch("/v1/conversations", {method: "POST", json: {}})).status, 400);
            assert.equal((await off.fetch("/v1/responses",
                {method: "POST", json: {model: "m", input: "x", conversation: "conv_x"}})).status, 400);
        } finally {
            await off.close();
        }
    });
});
