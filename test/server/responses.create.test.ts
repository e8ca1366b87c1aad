import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {assertValidResponse, assertValidStream} from "../helpers/conformance.js";
import {readSse, startTestServer, type TestServer} from "../helpers/testServer.js";

describe("POST /v1/responses (real engine, openai SDK)", () => {
    let server: TestServer;
    before(async () => {
        server = await startTestServer();
    });
    after(() => server.close());

    it("creates a plain response with text and usage", async () => {
        const response = await server.client.responses.create({model: "anything", input: "Tell me a story.", max_output_tokens: 24});
        assertValidResponse(response);
        assert.equal(response.model, "stories260K");
        assert.ok(response.output_text.length > 0);
        assert.ok(response.usage!.input_tokens > 0);
        assert.ok(response.usage!.output_tokens > 0 && response.usage!.output_tokens <= 24);
        assert.equal(response.usage!.total_tokens, response.usage!.input_tokens + response.usage!.output_tokens);
    });

    it("streams typed events ending with exactly one terminal event", async () => {
        const res = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: "Once upon a time", max_output_tokens: 16, stream: true}});
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type")!, /text\/event-stream/);
        const events = await readSse(res);
        assertValidStream(events);
        assert.deepEqual(events.slice(0, 4).map((event) => event.type),
            ["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"]);
        const deltas = events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta).join("");
        const done = events.find((event) => event.type === "response.output_text.done")!;
        assert.equal(done.text, deltas);
        assertValidResponse(events.at(-1)!.response);
    });
});
