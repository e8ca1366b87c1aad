import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {defaultConfig} from "../../../src/host/config.js";
import {assertValidResponse, assertValidStream} from "../../helpers/conformance.js";
import {isTerminal, pollUntil, sseEvents, type SseEvent} from "../../helpers/background.js";
import {buildTimeoutMs, startLlamaServer, type LlamaServerProcess} from "../../helpers/llamaServer.js";
import {models} from "../../helpers/paths.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

/** This server with `--engine upstream` in front of a real llama-server (built by scripts/build-llama-server.sh). */
async function startUpstreamServer(urls: string[], extra: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
    return startTestServer({
        engine: "upstream",
        upstream: {...defaultConfig().upstream, urls, healthIntervalMs: 200, timeoutSeconds: 60},
        ...extra
    });
}

describe("upstream engine: the Responses API over a real llama-server (OpenAI SDK)", () => {
    let upstream: LlamaServerProcess;
    let server: TestServer;
    before(async () => {
        upstream = await startLlamaServer({model: models.chatml, slots: 2, ignoreEos: true});
        server = await startUpstreamServer([`${upstream.url}/v1`]);
    }, {timeout: buildTimeoutMs});
    after(async () => {
        await server?.close();
        await upstream?.stop();
    });

    it("names the upstream's model and answers a plain request with the upstream's usage", async () => {
        const listed = await server.client.models.list();
        assert.equal(listed.data.length, 1);
        assert.match(listed.data[0]!.id, /stories260K/);
        const response = await server.client.responses.create({
            model: listed.data[0]!.id, input: "Once upon a time", max_output_tokens: 12, temperature: 0
        });
        assertValidResponse(response);
        assert.equal(response.status, "incomplete", "--ignore-eos: the output cap ends it");
        assert.equal(response.incomplete_details?.reason, "max_output_tokens");
        assert.ok(response.output_text.length > 0);
        assert.equal(response.usage?.output_tokens, 12, "llama-server's own completion_tokens");
        assert.ok(response.usage!.input_tokens > 3);
        const counted = await server.client.responses.inputTokens.count({model: "m", input: "Once upon a time"});
        assert.equal(counted.input_tokens, response.usage!.input_tokens,
            "counted by llama-server's /apply-template + /tokenize, as it evaluates");
        const status = await (await server.fetch("/v1/status")).json() as {
            engine: {upstreams: {url: string, state: string, requests: number}[]}
        };
        assert.equal(status.engine.upstreams[0]!.url, upstream.url);
        assert.equal(status.engine.upstreams[0]!.state, "up");
        assert.ok(status.engine.upstreams[0]!.requests >= 1);
    });

    it("streams each upstream delta as its own event, in a valid stream", async () => {
        const stream = await server.client.responses.create({
            model: "m", input: "Once upon a time", max_output_tokens: 16, temperature: 0, stream: true
        });
        const events: SseEvent[] = [];
        for await (const event of stream)
            events.push(event as unknown as SseEvent);
        assertValidStream(events);
        const deltas = events.filter((event) => event.type === "response.output_text.delta");
        assert.ok(deltas.length >= 8, `one delta per upstream chunk, got ${deltas.length}`);
        const done = events.find((event) => event.type === "response.output_text.done")!;
        assert.equal(deltas.map((event) => event.delta).join(""), done.text);
        assert.equal(events.at(-1)!.type, "response.incomplete");
    });

    it("continues a previous_response_id chain from the store; the upstream reuses the chain's prefix (cached_tokens)", async () => {
        const first = await server.client.responses.create({
            model: "m", input: "Lily had a red ball.", max_output_tokens: 8, temperature: 0, store: true
        });
        const second = await server.client.responses.create({
            model: "m", input: "What did Lily have?", previous_response_id: first.id, max_output_tokens: 8, temperature: 0
        });
        assert.equal(second.previous_response_id, first.id);
        assert.ok(second.usage!.input_tokens > first.usage!.input_tokens + first.usage!.output_tokens - 2,
            "the history travelled upstream");
        assert.ok(second.usage!.input_tokens_details.cached_tokens > 0,
            `the slot's cached prefix is reported (${JSON.stringify(second.usage)})`);
        const items = await server.client.responses.inputItems.list(second.id);
        assert.ok(items.data.length >= 3);
        const retrieved = await server.client.responses.retrieve(second.id);
        assert.equal(retrieved.output_text, second.output_text);
    });

    it("sends function calls and their outputs back as tool messages that llama-server renders (--jinja)", async () => {
        const response = await server.client.responses.create({
            model: "m",
            input: [
                {role: "user", content: "What is the weather in Paris?"},
                {type: "function_call", call_id: "call_a", name: "get_weather", arguments: "{\"city\":\"Paris\"}"},
                {type: "function_call_output", call_id: "call_a", output: "sunny"}
            ],
            // No `tools` this turn: on these tiny models a tools grammar may fail upstream (see the forced-call test);
            // what is tested here is the history (assistant tool_calls + tool messages with their tool_call_id).
            max_output_tokens: 6,
            temperature: 0
        });
        assertValidResponse(response);
        assert.notEqual(response.status, "failed", JSON.stringify(response.error));
        assert.ok(response.usage!.input_tokens > 20, "the tool exchange was rendered into the prompt");
    });

    it("a background response is cancelled at once and the upstream request stops", async () => {
        const created = await server.client.responses.create({
            model: "m", input: "Tell me a long story.", max_output_tokens: 1800, background: true
        });
        await pollUntil(server, created.id, (response) => response.status === "in_progress");
        const started = Date.now();
        const cancelled = await server.client.responses.cancel(created.id);
        assert.equal(cancelled.status, "cancelled");
        const final = await pollUntil(server, created.id, isTerminal);
        assert.equal(final.status, "cancelled");
        const stats = () => server.host.engine.stats().upstreams![0]!;
        while (stats().outstanding > 0 && Date.now() - started < 5000)
            await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(stats().outstanding, 0, "the upstream request was released");
        // The slot is free again: the next request is answered at once rather than after 1800 tokens.
        const next = await server.client.responses.create({model: "m", input: "Hi", max_output_tokens: 2});
        assert.ok(next.output_text.length > 0);
    });

    it("a client that disconnects mid-stream aborts the upstream request", async () => {
        const controller = new AbortController();
        const res = await server.fetch("/v1/responses", {
            method: "POST", json: {model: "m", input: "Tell me a long story.", max_output_tokens: 1800, stream: true},
            signal: controller.signal
        });
        for await (const event of sseEvents(res))
            if (event.type === "response.output_text.delta")
                break;
        controller.abort();
        const started = Date.now();
        const stats = () => server.host.engine.stats().upstreams![0]!;
        while (stats().outstanding > 0 && Date.now() - started < 5000)
            await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(stats().outstanding, 0);
    });

    it("an upstream refusal of a forced tool call on this tiny model is a clear 400 error, not a hang", async () => {
        // llama-server's grammar sampler fails on these models for tools/json_schema (docs/upstream.md): the
        // client gets the upstream's message with code upstream_rejected.
        const qwen = await startLlamaServer({model: models.qwen, slots: 1});
        const front = await startUpstreamServer([qwen.url]);
        try {
            const res = await front.fetch("/v1/responses", {method: "POST", json: {
                model: "m", input: "weather?", max_output_tokens: 16,
                tools: [
                    {
                        type: "function", name: "get_weather", parameters: {type: "object", properties: {city: {type: "string"}},
                            required: ["city"], additionalProperties: false}, strict: true
                    }
                ],
                tool_choice: {type: "function", name: "get_weather"}
            }});
            const body = await res.json() as any;
            if (res.status !== 200) {
                assert.equal(res.status, 400);
                assert.equal(body.error.code, "upstream_rejected");
                assert.match(body.error.message, /upstream .* answered 400/);
            } else {
                const response = body as {output: Array<{type: string, name?: string}>};
                // A llama.cpp that can build the grammar answers with the forced call.
                const call = response.output.find((item) => item.type === "function_call");
                assert.equal(call?.name, "get_weather", JSON.stringify(response.output));
            }
        } finally {
            await front.close();
            await qwen.stop();
        }
    });
});

describe("upstream engine: errors when the upstream goes away", () => {
    it("a stopped upstream gives 502 upstream_unavailable in OpenAI's shape, and the server keeps "
        + "serving", {timeout: buildTimeoutMs}, async () => {
        const upstream = await startLlamaServer({model: models.chatml, slots: 1});
        const server = await startUpstreamServer([upstream.url]);
        try {
            const ok = await server.client.responses.create({model: "m", input: "Hi", max_output_tokens: 2});
            assert.ok(ok.output_text.length > 0);
            await upstream.stop();
            // The first request may find out itself (while generating) or at admission: 502 either way.
            for (const stream of [false, false, true]) {
                const res = await server.fetch("/v1/responses",
                    {method: "POST", json: {model: "m", input: "Hi", max_output_tokens: 2, stream}});
                assert.equal(res.status, 502);
                const body = await res.json() as {error: {message: string, type: string, param: unknown, code: string}};
                assert.deepEqual(Object.keys(body.error).sort(), ["code", "message", "param", "type"]);
                assert.equal(body.error.code, "upstream_unavailable");
                assert.match(body.error.message, /upstream/i);
            }
            const status = await (await server.fetch("/v1/status")).json() as {engine: {upstreams: {state: string, errors: number}[]}};
            assert.equal(status.engine.upstreams[0]!.state, "down");
            const health = await server.fetch("/v1/models");
            assert.equal(health.status, 200, "the server itself keeps serving");
        } finally {
            await server.close();
            await upstream.stop();
        }
    });
});

describe("upstream engine: an upstream that dies mid-generation", () => {
    /** SIGKILLs the upstream as soon as its first output of the next generation arrives here. */
    function killOnFirstOutput(server: TestServer, upstream: LlamaServerProcess): Promise<void> {
        const activity = server.host.engine.activity;
        const baseline = activity.snapshot().generatedTokens;
        return new Promise((resolve) => {
            const stop = activity.onChange((snapshot) => {
                if (snapshot.generatedTokens <= baseline)
                    return;
                stop();
                resolve(upstream.stop("SIGKILL"));
            });
        });
    }

    it("without streaming: the request answers 502 in OpenAI's error shape (as a failed synchronous create does), nothing is "
        + "stored", {timeout: buildTimeoutMs}, async () => {
        const upstream = await startLlamaServer({model: models.chatml, slots: 1, ignoreEos: true});
        const server = await startUpstreamServer([upstream.url]);
        try {
            const killed = killOnFirstOutput(server, upstream);
            const res = await server.fetch("/v1/responses",
                {method: "POST", json: {model: "m", input: "Tell me a long story.", max_output_tokens: 1800, store: true}});
            await killed;
            const body = await res.json() as {error: {message: string, type: string, param: unknown, code: string}};
            assert.equal(res.status, 502, JSON.stringify(body));
            assert.deepEqual(Object.keys(body), ["error"]);
            assert.deepEqual(Object.keys(body.error).sort(), ["code", "message", "param", "type"]);
            assert.equal(body.error.code, "upstream_unavailable");
            assert.equal(body.error.type, "server_error");
            assert.match(body.error.message, /closed the stream mid-response/);
            const listed = server.host.engine.stats();
            assert.equal(listed.upstreams![0]!.outstanding, 0, "the lease was released");
        } finally {
            await server.close();
            await upstream.stop();
        }
    });

    it("in background: the job's record says failed, with the upstream's error", {timeout: buildTimeoutMs}, async () => {
        const upstream = await startLlamaServer({model: models.chatml, slots: 1, ignoreEos: true});
        const server = await startUpstreamServer([upstream.url]);
        try {
            const killed = killOnFirstOutput(server, upstream);
            const created = await server.client.responses.create({
                model: "m", input: "Tell me a long story.", max_output_tokens: 1800, background: true
            });
            await killed;
            const final = await pollUntil(server, created.id, isTerminal);
            assert.equal(final.status, "failed");
            assert.equal(final.error.code, "upstream_unavailable");
            assert.equal((await server.client.responses.retrieve(created.id)).status, "failed", "a poll keeps answering failed");
        } finally {
            await server.close();
            await upstream.stop();
        }
    });
});
