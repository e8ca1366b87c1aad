import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {readSse, startTestServer, type TestServer} from "../../helpers/testServer.js";

/**
 * A streaming request that must wait for a sequence opens its stream with `response.created` before the wait, as
 * OpenAI's does at once: a client whose idle timer counts parsed events (Codex) sees the stream begin, then its
 * keep-alives. The rest of the stream continues the same sequence.
 */
describe("a streamed request waiting for a sequence (real server, one sequence)", () => {
    let server: TestServer;
    before(async () => {
        server = await startTestServer({parallel: 1});
    });
    after(() => server?.close());

    it("gets response.created before the busy sequence is free, then a whole stream in one sequence", async () => {
        let firstDone = 0;
        const busy = server.fetch("/v1/responses",
            {method: "POST", json: {model: "m", input: "Tell me a long story.", max_output_tokens: 1500, temperature: 0, store: false}})
            .then(async (response) => {
                await response.json();
                firstDone = performance.now();
            });
        // Let the first request take the only sequence.
        await new Promise((resolve) => setTimeout(resolve, 100));
        const queued = await server.fetch("/v1/responses",
            {method: "POST", json: {model: "m", input: "Hello", max_output_tokens: 4, stream: true, store: false}});
        assert.equal(queued.status, 200);
        const reader = queued.body!.getReader();
        let text = "";
        let openedAt = 0;
        for (;;) {
            const {value, done} = await reader.read();
            if (done)
                break;
            openedAt ||= performance.now();
            text += new TextDecoder().decode(value);
        }
        await busy;
        assert.match(text, /^event: response\.created\n/);
        assert.ok(openedAt < firstDone, "the stream opened while the other request still held the sequence");
        const events = await readSse(new Response(text));
        assert.deepEqual(events.map((event) => event.sequence_number), events.map((_event, index) => index),
            "one sequence, no gap, no repeat");
        assert.equal(events.filter((event) => event.type === "response.created").length, 1);
        assert.match(events.at(-1)!.type, /^response\.(completed|incomplete)$/, "a whole response (4 tokens may cut it)");
    });

    it("keeps a free sequence's stream exactly as before (created and in_progress together)", async () => {
        const events = await readSse(
            await server.fetch("/v1/responses",
                {method: "POST", json: {model: "m", input: "Hi", max_output_tokens: 2, stream: true, store: false}})
        );
        assert.deepEqual(events.slice(0, 2).map((event) => event.type), ["response.created", "response.in_progress"]);
        assert.deepEqual(events.map((event) => event.sequence_number), events.map((_event, index) => index));
    });

    it("parses with the OpenAI SDK while queued", async () => {
        const busy = server.client.responses.create({
            model: "m", input: "Tell me a long story.", max_output_tokens: 800, temperature: 0, store: false
        });
        await new Promise((resolve) => setTimeout(resolve, 50));
        const stream = await server.client.responses.create({model: "m", input: "Hello", max_output_tokens: 4, stream: true, store: false});
        const types: string[] = [];
        for await (const event of stream)
            types.push(event.type);
        await busy;
        assert.equal(types[0], "response.created");
        assert.match(types.at(-1)!, /^response\.(completed|incomplete)$/);
    });
});
