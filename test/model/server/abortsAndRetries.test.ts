import assert from "node:assert/strict";
import {setTimeout as delay} from "node:timers/promises";
import {after, before, describe, it} from "node:test";
import OpenAI, {InternalServerError, RateLimitError} from "openai";
// @ts-expect-error: the parser ships no type declarations
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import {backgroundSettings, isTerminal, longGeneration, pollUntil, unendingGeneration} from "../../helpers/background.js";
import {SocketClient} from "../../helpers/socketClient.js";
import {syntheticModel} from "../../helpers/syntheticModel.js";
import {startTestServer, type TestServer, useTestServer} from "../../helpers/testServer.js";

type Family = {name: string, metrics: Array<{value?: string, labels?: Record<string, string>}>};

async function abortedCount(server: TestServer, reason: string): Promise<number> {
    const families: Family[] = parsePrometheusTextFormat(await (await server.fetch("/metrics")).text());
    const family = families.find((entry) => entry.name === "local_responses_generations_aborted_total");
    assert.ok(family, "local_responses_generations_aborted_total is exported");
    return Number(family.metrics.find((metric) => metric.labels?.reason === reason)?.value ?? 0);
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!(await condition())) {
        assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
        await delay(10);
    }
}

describe("aborted generations are counted in /metrics by reason", () => {
    const server = useTestServer({parallel: 2});

    it("an HTTP stream whose client disconnects counts as client_disconnected", async () => {
        const before = await abortedCount(server, "client_disconnected");
        const controller = new AbortController();
        const res = await server.fetch("/v1/responses", {method: "POST", json: longGeneration({stream: true}), signal: controller.signal});
        const reader = res.body!.getReader();
        let seen = "";
        while (!seen.includes("response.output_text.delta")) {
            const {value, done} = await reader.read();
            assert.ok(!done, "the stream ended before its first text delta");
            seen += new TextDecoder().decode(value);
        }
        controller.abort();
        await until(async () => await abortedCount(server, "client_disconnected") === before + 1, "the disconnect to be counted");
        await until(() => server.host.engine.stats().sequencesBusy === 0, "the sequence to be free");
    });

    it("a WebSocket closed mid-turn counts as client_disconnected", async () => {
        const before = await abortedCount(server, "client_disconnected");
        const socket = await SocketClient.open(`${server.url.replace(/^http/, "ws")}/responses`,
            {authorization: `Bearer ${server.apiKey}`});
        socket.send({type: "response.create", ...longGeneration()});
        await until(() => server.host.engine.stats().sequencesBusy > 0, "the turn to start");
        await delay(50);
        socket.ws.close();
        await until(async () => await abortedCount(server, "client_disconnected") === before + 1, "the closed socket to be counted");
    });

    it("a cancelled background response counts as cancelled", async () => {
        const before = await abortedCount(server, "cancelled");
        const job = await server.client.responses.create({...longGeneration(), background: true} as never) as {id: string};
        await until(() => server.host.engine.stats().sequencesBusy > 0, "the job to start");
        await delay(50);
        await server.client.responses.cancel(job.id);
        await pollUntil(server, job.id, isTerminal);
        await until(async () => await abortedCount(server, "cancelled") === before + 1, "the cancel to be counted");
    });

    it("finished generations are not counted as aborted", async () => {
        const reasons = ["client_disconnected", "cancelled", "deadline", "shutdown"];
        const before = await Promise.all(reasons.map((reason) => abortedCount(server, reason)));
        await server.client.responses.create({model: "m", input: "hi", max_output_tokens: 4});
        assert.deepEqual(await Promise.all(reasons.map((reason) => abortedCount(server, reason))), before);
    });
});

// The SDK's retries come a second or more after a refusal, so what holds the sequence must outlast that on any
// machine: an unending generation on the full-size synthetic model (~14 s here) rather than a long one on the tiny
// model (~2 s here, and less on a faster machine: CI's retries found the sequence free).
describe("429 and 503 answers carry Retry-After, and the OpenAI SDK waits that long before retrying", () => {
    let server: TestServer;
    before(async () => {
        server = await startTestServer({
            model: await syntheticModel(), parallel: 1, queueLimit: 1, background: backgroundSettings({maxJobsPerKey: 1})
        });
    });
    after(() => server?.close());

    /** An SDK client whose fetch records when each attempt was sent. */
    const recordingClient = (attempts: number[], maxRetries: number) => new OpenAI({
        baseURL: server.url, apiKey: server.apiKey, maxRetries, timeout: 60_000,
        fetch: (url, init) => {
            attempts.push(performance.now());
            return fetch(url, init);
        }
    });

    it("a full generation queue: 503 server_overloaded with Retry-After: 1; the SDK's retry comes a second later", async () => {
        const runningController = new AbortController();
        const running = server.fetch("/v1/responses", {method: "POST", json: unendingGeneration(), signal: runningController.signal})
            .catch(() => undefined);
        await until(() => server.host.engine.stats().sequencesBusy > 0, "the first generation");
        const queued = server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: "hi", max_output_tokens: 2}});
        await until(() => server.host.engine.stats().queueDepth > 0, "the queue to fill");

        const refused = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: "hi", max_output_tokens: 2}});
        assert.equal(refused.status, 503);
        assert.equal(refused.headers.get("retry-after"), "1");
        assert.equal(((await refused.json()) as {error: {code: string}}).error.code, "server_overloaded");

        const attempts: number[] = [];
        await assert.rejects(recordingClient(attempts, 1).responses.create({model: "m", input: "hi", max_output_tokens: 2}),
            InternalServerError);
        assert.equal(attempts.length, 2, "one retry");
        const waited = attempts[1]! - attempts[0]!;
        // The SDK's own backoff for a first retry is at most 0.5 s; Retry-After makes it 1 s.
        assert.ok(waited >= 950 && waited < 3000, `the SDK waited ${Math.round(waited)} ms`);
        assert.ok(server.host.engine.stats().sequencesBusy > 0, "the first generation held the sequence throughout");
        runningController.abort();
        assert.equal((await queued).status, 200, "the queued request is served once the sequence is free");
        await running;
        await until(() => server.host.engine.stats().sequencesBusy === 0, "the sequence to be free");
    });

    it("too many active background responses: 429 with Retry-After", async () => {
        const job = await server.client.responses.create({...unendingGeneration(), background: true} as never) as {id: string};
        const refused = await server.fetch("/v1/responses", {method: "POST", json: {...unendingGeneration(), background: true}});
        assert.equal(refused.status, 429);
        assert.equal(refused.headers.get("retry-after"), "1");
        const attempts: number[] = [];
        await assert.rejects(recordingClient(attempts, 1).responses.create({...unendingGeneration(), background: true} as never),
            RateLimitError);
        assert.ok(attempts[1]! - attempts[0]! >= 950, "the SDK honoured Retry-After");
        await server.client.responses.cancel(job.id);
        await pollUntil(server, job.id, isTerminal);
    });

    it("no model loaded: 503 model_not_loaded with Retry-After", async () => {
        await server.host.unloadModel();
        const refused = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: "hi"}});
        assert.equal(refused.status, 503);
        assert.ok(Number(refused.headers.get("retry-after")) >= 1);
        assert.equal(((await refused.json()) as {error: {code: string}}).error.code, "model_not_loaded");
    });
});
