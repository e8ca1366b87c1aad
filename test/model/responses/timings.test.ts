import assert from "node:assert/strict";
import {after, before, test} from "node:test";
import {responseTimings} from "../../../src/responses/responseTimings.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

test("timings: queue wait, time to first token, generation time and rates from the marks", () => {
    const timings = responseTimings({
        acceptedAt: 1000, startedAt: 1250, endedAt: 3250, timeToFirstTokenMs: 500,
        usage: {inputTokens: 400, cachedTokens: 100, outputTokens: 31}
    });
    assert.equal(timings.queueWaitMs, 250);
    assert.equal(timings.generationMs, 2000);
    assert.equal(timings.timeToFirstTokenMs, 500);
    // 30 tokens after the first, in the 1.5 s after it; 300 evaluated prompt tokens in 0.5 s.
    assert.equal(timings.outputTokensPerSecond, 20);
    assert.equal(timings.promptTokensPerSecond, 600);
    assert.equal(timings.cachedTokens, 100);
});

test("timings: no rate without a measurable span (no token, one token, a fully cached prompt)", () => {
    const none = responseTimings({
        acceptedAt: 0, startedAt: 0, endedAt: 10, timeToFirstTokenMs: null, usage: {inputTokens: 5, cachedTokens: 0, outputTokens: 0}
    });
    assert.equal(none.outputTokensPerSecond, null);
    assert.equal(none.promptTokensPerSecond, null);
    const one = responseTimings({
        acceptedAt: 0, startedAt: 0, endedAt: 10, timeToFirstTokenMs: 10, usage: {inputTokens: 5, cachedTokens: 5, outputTokens: 1}
    });
    assert.equal(one.outputTokensPerSecond, null);
    assert.equal(one.promptTokensPerSecond, null, "every prompt token was cached");
});

let server: TestServer;
before(async () => {
    server = await startTestServer();
});
after(async () => {
    await server.close();
});

test("a stored response keeps its timings beside it, not in the object clients get", async () => {
    const response = await server.client.responses.create({
        model: "local", input: "Once upon a time", max_output_tokens: 24, temperature: 0
    });
    const stored = server.host.store.inspect(response.id);
    const timings = stored?.timings;
    assert.ok(timings != null, "the store record has timings");
    assert.ok(timings.queueWaitMs >= 0);
    assert.ok(timings.timeToFirstTokenMs != null && timings.timeToFirstTokenMs > 0);
    assert.ok(timings.generationMs >= timings.timeToFirstTokenMs, JSON.stringify(timings));
    assert.equal(timings.outputTokens, response.usage!.output_tokens);
    assert.equal(timings.inputTokens, response.usage!.input_tokens);
    assert.equal(timings.cachedTokens, response.usage!.input_tokens_details.cached_tokens);
    assert.ok(timings.outputTokensPerSecond != null && timings.outputTokensPerSecond > 0);
    assert.equal("timings" in (response as object), false);
    const retrieved = await server.fetch(`/v1/responses/${response.id}`).then((reply) => reply.json()) as Record<string, unknown>;
    assert.equal("timings" in retrieved, false, "the wire object is unchanged");
});

test("a continuation's cached prefix shows in its timings", async () => {
    const first = await server.client.responses.create({
        model: "local", input: "Once upon a time there was a little dog", max_output_tokens: 16, temperature: 0
    });
    const second = await server.client.responses.create({
        model: "local", previous_response_id: first.id, input: "And then", max_output_tokens: 16, temperature: 0
    });
    const timings = server.host.store.inspect(second.id)!.timings!;
    assert.ok(timings.cachedTokens > 0, `cached ${timings.cachedTokens}`);
    assert.equal(timings.cachedTokens, second.usage!.input_tokens_details.cached_tokens);
});

test("a background job's record carries its timings, queue time included", async () => {
    const response = await server.client.responses.create({
        model: "local", input: "Once upon a time", background: true, max_output_tokens: 16
    });
    const job = server.host.jobs.all().find((candidate) => candidate.id === response.id)!;
    await job.settled;
    const timings = job.payload.timings;
    assert.ok(timings != null);
    assert.ok(timings.queueWaitMs >= 0 && timings.generationMs > 0);
    assert.deepEqual(server.host.store.inspect(response.id)?.timings, timings);
});
