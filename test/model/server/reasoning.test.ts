import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {assertValidResponse, assertValidStream} from "../../helpers/conformance.js";
import {models} from "../../helpers/paths.js";
import {type TestServer, readSse, useTestServer} from "../../helpers/testServer.js";

describe("reasoning (stories260K-think, Qwen wrapper with thought segments)", () => {
    const server = useTestServer({model: models.think});

    it("outputs a reasoning item ahead of the message; the budget is half of max_output_tokens at most", async () => {
        const response = await server.client.responses.create({
            model: "m", input: "Tell me a story.", max_output_tokens: 40, reasoning: {effort: "low"}, temperature: 0
        });
        assertValidResponse(response);
        assert.deepEqual(response.output.map((item) => item.type), ["reasoning", "message"]);
        const reasoning = response.output[0] as any;
        assert.equal(reasoning.content[0].type, "reasoning_text");
        assert.ok(reasoning.content[0].text.length > 0);
        assert.deepEqual(reasoning.summary, []);
        assert.equal(reasoning.encrypted_content ?? null, null, "no token unless included");
        // effort low = 256 tokens, capped at 40 / 2: the tiny model thinks exactly its budget.
        assert.equal(response.usage!.output_tokens_details.reasoning_tokens, 20);
    });

    it("effort maps to increasing budgets; none turns thinking off", async () => {
        const usage = async (effort: "none" | "minimal" | "low") => (await server.client.responses.create({
            model: "m", input: "Tell me a story.", max_output_tokens: 600, reasoning: {effort}, temperature: 0
        })).usage!.output_tokens_details.reasoning_tokens;
        const none = await usage("none");
        const minimal = await usage("minimal");
        const low = await usage("low");
        assert.equal(none, 0);
        assert.equal(minimal, 64);
        // The budget bounds thinking; the thought may end on its own before it (measured: 227 of 256).
        assert.ok(low > minimal && low <= 256, `low: ${low}`);
    });

    it("streams reasoning_text deltas in a reasoning item before the message", async () => {
        const res = await server.fetch("/v1/responses",
            {method: "POST", json: {model: "m", input: "Story", stream: true, max_output_tokens: 30, reasoning: {effort: "low"}}});
        const events = await readSse(res);
        assertValidStream(events);
        const types = events.map((event) => event.type);
        const firstReasoning = types.indexOf("response.reasoning_text.delta");
        const firstText = types.indexOf("response.output_text.delta");
        assert.ok(firstReasoning > 0 && firstText > firstReasoning);
        assert.ok(types.indexOf("response.reasoning_text.done") < firstText);
        const text = events.filter((event) => event.type === "response.reasoning_text.delta").map((event) => event.delta).join("");
        assert.equal(events.at(-1)!.response.output[0].content[0].text, text);
    });

    it("include reasoning.encrypted_content: an opaque token that replays (content null) into a cached prompt", async () => {
        const input = [{role: "user" as const, content: "Tell me a story."}];
        const first = await server.client.responses.create({
            model: "m", input, store: false, include: ["reasoning.encrypted_content"], max_output_tokens: 30, reasoning: {effort: "low"},
            temperature: 0
        });
        assertValidResponse(first);
        const reasoning = first.output[0] as any;
        assert.match(reasoning.encrypted_content, /^lr1\./);

        // As Codex replays it: no content, no summary, only the token.
        const replayed = {type: "reasoning", id: reasoning.id, summary: [], content: null, encrypted_content: reasoning.encrypted_content};
        const follow = [...input, replayed, first.output[1], {role: "user", content: "And then?"}];
        const withToken = await countTokens(server, follow);
        const withText = await countTokens(server, [...input, first.output[0], first.output[1], {role: "user", content: "And then?"}]);
        assert.equal(withToken, withText, "the token renders the same thought as the text");

        const second = await server.client.responses.create({
            model: "m", input: follow as any, store: false, max_output_tokens: 8, reasoning: {effort: "minimal"}
        });
        assertValidResponse(second);

        // A token this server did not issue (or altered) is not an error: the item is skipped.
        const forged = {...replayed, encrypted_content: reasoning.encrypted_content.slice(0, -2) + "AA"};
        const res = await server.fetch("/v1/responses", {
            method: "POST",
            json: {model: "m", input: [...input, forged, first.output[1], {role: "user", content: "More"}], max_output_tokens: 4}
        });
        assert.equal(res.status, 200);
    });
});

async function countTokens(server: TestServer, input: unknown[]): Promise<number> {
    const res = await server.fetch("/v1/responses/input_tokens", {method: "POST", json: {model: "m", input}});
    assert.equal(res.status, 200);
    return (await res.json()).input_tokens;
}
