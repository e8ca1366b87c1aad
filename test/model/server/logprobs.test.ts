import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {assertValidResponse, assertValidStream} from "../../helpers/conformance.js";
import {readSse, useTestServer} from "../../helpers/testServer.js";

type Logprob = {token: string, logprob: number, bytes: number[], top_logprobs: {token: string, logprob: number, bytes: number[]}[]};

function outputText(response: any): {text: string, logprobs: Logprob[]} {
    const message = response.output.find((item: any) => item.type === "message");
    return message.content[0];
}

/** Greedy decoding picks the most likely token: each token is its own first alternative, alternatives sorted. */
function assertGreedyLogprobs(text: string, logprobs: Logprob[], top: number): void {
    assert.equal(logprobs.map((entry) => entry.token).join(""), text, "the tokens spell the text");
    for (const entry of logprobs) {
        assert.ok(entry.logprob <= 0);
        assert.deepEqual(entry.bytes, [...Buffer.from(entry.token, "utf8")]);
        assert.equal(entry.top_logprobs.length, top);
        if (top > 0)
            assert.equal(entry.top_logprobs[0]!.token, entry.token);
        for (let index = 1; index < entry.top_logprobs.length; index++)
            assert.ok(entry.top_logprobs[index - 1]!.logprob >= entry.top_logprobs[index]!.logprob);
    }
}

describe("token logprobs on output_text", () => {
    const server = useTestServer();

    const body = {model: "m", input: "Tell me a story.", max_output_tokens: 16, temperature: 0};

    it("top_logprobs gives one entry per generated token with its alternatives (non-streaming)", async () => {
        const response = await server.client.responses.create({...body, top_logprobs: 3, include: ["message.output_text.logprobs"]});
        assertValidResponse(response);
        assert.equal(response.top_logprobs, 3);
        const {text, logprobs} = outputText(response);
        // A length stop: every generated token is an answer token.
        assert.equal(response.status, "incomplete");
        assert.equal(logprobs.length, response.usage!.output_tokens);
        assertGreedyLogprobs(text, logprobs, 3);
    });

    it("streamed: deltas carry none; output_text.done, content_part.done and the final object carry them", async () => {
        const res = await server.fetch("/v1/responses", {method: "POST", json: {...body, stream: true, top_logprobs: 2}});
        assert.equal(res.status, 200);
        const events = await readSse(res);
        assertValidStream(events);
        assert.ok(events.filter((event) => event.type === "response.output_text.delta").every((event) => event.logprobs.length === 0));
        const final = outputText(events.at(-1)!.response);
        assertGreedyLogprobs(final.text, final.logprobs, 2);
        assert.equal(final.logprobs.length, events.at(-1)!.response.usage.output_tokens);
        assert.deepEqual(events.find((event) => event.type === "response.output_text.done")!.logprobs, final.logprobs);
        assert.deepEqual(events.find((event) => event.type === "response.content_part.done")!.part.logprobs, final.logprobs);
    });

    it("include alone gives each token's logprob without alternatives; neither gives none", async () => {
        const included = await server.client.responses.create({...body, include: ["message.output_text.logprobs"]});
        assertValidResponse(included);
        const {text, logprobs} = outputText(included);
        assert.equal(logprobs.length, included.usage!.output_tokens);
        assertGreedyLogprobs(text, logprobs, 0);
        const plain = await server.client.responses.create(body);
        assert.deepEqual(outputText(plain).logprobs, []);
    });

    it("the prompt cache still serves the next turn after scoring", async () => {
        const first = await server.client.responses.create({...body, top_logprobs: 1});
        const second = await server.client.responses.create({...body, previous_response_id: first.id, input: "And then?", top_logprobs: 1});
        assertValidResponse(second);
        assert.ok(second.usage!.input_tokens_details.cached_tokens > first.usage!.input_tokens - 2);
        const {text, logprobs} = outputText(second);
        assertGreedyLogprobs(text, logprobs, 1);
    });
});
