import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {assertValidEvent, assertValidResponse, assertValidStream} from "../../helpers/conformance.js";
import {readSse, useTestServer} from "../../helpers/testServer.js";

describe("POST /v1/responses (real engine, openai SDK)", () => {
    const server = useTestServer();

    it("creates a plain response with text and usage", async () => {
        const response = await server.client.responses.create({model: "anything", input: "Tell me a story.", max_output_tokens: 24});
        assertValidResponse(response);
        assert.equal(response.model, "stories260K", "any model name is served by the loaded model");
        assert.ok(response.id.startsWith("resp_"));
        assert.ok(response.output_text.length > 0);
        assert.ok(response.usage!.input_tokens > 0);
        assert.ok(response.usage!.output_tokens > 0 && response.usage!.output_tokens <= 24);
        assert.equal(response.usage!.total_tokens, response.usage!.input_tokens + response.usage!.output_tokens);
        assert.equal((response as unknown as {store: boolean}).store, true, "store defaults to true, as OpenAI");
    });

    it("streams typed events ending with exactly one terminal event", async () => {
        const res = await server.fetch("/v1/responses",
            {method: "POST", json: {model: "m", input: "Once upon a time", max_output_tokens: 16, stream: true}});
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type")!, /text\/event-stream/);
        const events = await readSse(res);
        assertValidStream(events);
        assert.deepEqual(events.slice(0, 4).map((event) => event.type),
            ["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"]);
        assert.deepEqual(events.map((event) => event.sequence_number), events.map((_event, index) => index));
        const deltas = events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta).join("");
        const done = events.find((event) => event.type === "response.output_text.done")!;
        assert.equal(done.text, deltas);
        const terminal = events.at(-1)!;
        assertValidResponse(terminal.response);
        assert.equal(terminal.response.output[0].content[0].text, deltas);
    });

    it("streams with the SDK's stream: true iterator and the responses.stream() helper", async () => {
        const stream = await server.client.responses.create({model: "m", input: "Hello", max_output_tokens: 12, stream: true});
        const types: string[] = [];
        for await (const event of stream) {
            assertValidEvent(event);
            types.push(event.type);
        }
        assert.equal(types[0], "response.created");
        assert.ok(["response.completed", "response.incomplete"].includes(types.at(-1)!));

        const helper = server.client.responses.stream({model: "m", input: "Hello again", max_output_tokens: 12});
        let text = "";
        helper.on("response.output_text.delta", (event) => {
            text += event.delta;
        });
        const final = await helper.finalResponse();
        assertValidResponse(final);
        assert.equal(final.output_text, text);
    });

    it("max_output_tokens cuts generation: status incomplete with reason max_output_tokens", async () => {
        // A long story does not end in 3 tokens.
        const response = await server.client.responses.create({
            model: "m", input: "Tell me a long story about a dog.", max_output_tokens: 3
        });
        assertValidResponse(response);
        assert.equal(response.status, "incomplete");
        assert.deepEqual(response.incomplete_details, {reason: "max_output_tokens"});
        assert.equal(response.usage!.output_tokens, 3);
        assert.equal(response.output[0]!.type === "message" && response.output[0]!.status, "incomplete");
    });

    it("echoes request fields: instructions, metadata, prompt_cache_key, sampling", async () => {
        const response = await server.client.responses.create({
            model: "m", input: "Hi", max_output_tokens: 4, instructions: "Be brief.", metadata: {run: "42"},
            prompt_cache_key: "session-1", temperature: 0.5, top_p: 0.9, client_metadata: {"x-trace": "abc"}, truncation: "disabled"
        } as never);
        assertValidResponse(response);
        assert.equal(response.instructions, "Be brief.");
        assert.deepEqual(response.metadata, {run: "42"});
        assert.equal(response.prompt_cache_key, "session-1");
        assert.equal(response.temperature, 0.5);
        assert.equal(response.top_p, 0.9);
        assert.equal((response as unknown as Record<string, unknown>).client_metadata, undefined, "client_metadata is not echoed");
    });

    it("accepts message items without type, system and developer roles, ids and statuses, and replays output as input", async () => {
        const first = await server.client.responses.create({model: "m", input: "Tell me about a cat.", max_output_tokens: 8, store: false});
        const response = await server.client.responses.create({
            model: "m",
            max_output_tokens: 8,
            input: [
                {role: "system", content: "You tell stories."},
                {role: "developer", content: [{type: "input_text", text: "Keep it short."}]},
                {role: "user", content: "Tell me about a cat."},
                ...first.output,
                {
                    type: "message", id: "msg_client_1", status: "completed", role: "user",
                    content: [{type: "input_text", text: "And then?"}]
                },
                {role: "assistant", content: [{type: "output_text", text: "Then", annotations: []}, {type: "refusal", refusal: "no"}]},
                {role: "user", content: "Go on."}
            ] as never
        });
        assertValidResponse(response);
        assert.equal(response.status === "completed" || response.status === "incomplete", true);
    });

    it("store: false responses are not retrievable", async () => {
        const response = await server.client.responses.create({model: "m", input: "Hi", max_output_tokens: 2, store: false});
        assert.equal((response as unknown as {store: boolean}).store, false);
        const res = await server.fetch(`/v1/responses/${response.id}`);
        assert.equal(res.status, 404);
    });
});
