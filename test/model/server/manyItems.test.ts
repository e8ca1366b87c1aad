import assert from "node:assert/strict";
import {monitorEventLoopDelay} from "node:perf_hooks";
import {after, before, describe, it} from "node:test";
import {maxConversationEntries} from "../../../src/responses/schemas/shapeBounds.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

/**
 * Issue 41, medium: a 6.5 MB body of 200,000 one-character messages held the event loop 842 ms (every key waits while
 * it does). Now a body of that many values is refused by a byte count before it is parsed, and one within the
 * bounds is validated once: the loop's longest stall during either stays under 50 ms.
 */
describe("many small items: refused or validated without stalling other keys", () => {
    let server: TestServer;
    before(async () => (server = await startTestServer()));
    after(() => server.close());

    const messages = (count: number) => Array.from({length: count}, (_, index) => ({role: index % 2 ? "assistant" : "user", content: "a"}));
    const cases = [
        {path: "/v1/chat/completions", body: (count: number) => ({model: "m", max_tokens: 1, messages: messages(count)}), anthropic: false},
        {path: "/v1/messages", body: (count: number) => ({model: "m", max_tokens: 1, messages: messages(count)}), anthropic: true},
        {path: "/v1/messages/count_tokens", body: (count: number) => ({model: "m", messages: messages(count)}), anthropic: true},
        {path: "/v1/responses", body: (count: number) => ({model: "m", max_output_tokens: 1, input: messages(count)}), anthropic: false}
    ];

    /** Posts a pre-serialised body and returns the answer and the event loop's longest stall (ms) meanwhile. */
    async function post(path: string, body: string): Promise<{status: number, error: {type?: string, code?: string}, stallMs: number}> {
        const histogram = monitorEventLoopDelay({resolution: 1});
        histogram.enable();
        const headers = {"content-type": "application/json", "anthropic-version": "2023-06-01"};
        const response = await server.fetch(path, {method: "POST", body, headers});
        const answer = await response.json() as {error: {type?: string, code?: string}};
        histogram.disable();
        return {status: response.status, error: answer.error, stallMs: histogram.max / 1e6};
    }

    for (const {path, body, anthropic} of cases) {
        it(`${path}: 200,000 messages are a 413 in the protocol's shape; ${maxConversationEntries + 1} a 400; neither stalls`, async () => {
            const huge = await post(path, JSON.stringify(body(200_000)));
            assert.equal(huge.status, 413);
            assert.equal(anthropic ? huge.error.type : huge.error.code, "request_too_large");
            assert.ok(huge.stallMs < 50, `the loop stalled ${huge.stallMs.toFixed(0)} ms`);
            const over = await post(path, JSON.stringify(body(maxConversationEntries + 1)));
            assert.equal(over.status, 400);
            if (!anthropic)
                assert.equal(over.error.code, "array_above_max_length");
            assert.ok(over.stallMs < 50, `the loop stalled ${over.stallMs.toFixed(0)} ms`);
        });
    }
});
