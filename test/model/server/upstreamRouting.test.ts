import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {defaultConfig} from "../../../src/host/config.js";
import {sseEvents, type SseEvent} from "../../helpers/background.js";
import {buildTimeoutMs, startLlamaServer, startRpcServer, type LlamaServerProcess} from "../../helpers/llamaServer.js";
import {models} from "../../helpers/paths.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

/** Two real llama-servers behind one Responses endpoint: affinity, failover, and a request in flight on a dying one. */
describe("upstream engine over two llama-servers", () => {
    let upstreams: LlamaServerProcess[];
    let server: TestServer;
    before(async () => {
        upstreams = [
            await startLlamaServer({model: models.chatml, slots: 2, ignoreEos: true}),
            await startLlamaServer({model: models.chatml, slots: 2, ignoreEos: true})
        ];
        server = await startTestServer({
            engine: "upstream",
            upstream: {
                ...defaultConfig().upstream, urls: upstreams.map((upstream) => upstream.url), healthIntervalMs: 200, timeoutSeconds: 60
            }
        });
    }, {timeout: buildTimeoutMs});
    after(async () => {
        await server?.close();
        for (const upstream of upstreams ?? [])
            await upstream.stop();
    });

    const requestsPerUpstream = () => server.host.engine.stats().upstreams!.map((upstream) => upstream.requests);
    const delta = (before: number[], after: number[]) => after.map((count, index) => count - before[index]!);

    it("keeps a previous_response_id chain on one upstream, and a prompt_cache_key too", async () => {
        const before = requestsPerUpstream();
        let previous: string | undefined;
        for (const input of ["Tom had a dog.", "What was its name?", "Where did they go?", "The end."]) {
            const response = await server.client.responses.create({
                model: "m", input, previous_response_id: previous, max_output_tokens: 4, temperature: 0
            });
            previous = response.id;
        }
        const chain = delta(before, requestsPerUpstream());
        assert.deepEqual(chain.toSorted(), [0, 4], `all four turns on one upstream: ${chain.join(",")}`);

        const keyed = requestsPerUpstream();
        await Promise.all(
            [0, 1, 2].map(
                (index) => server.client.responses.create({
                    model: "m", input: `Story ${index}`, prompt_cache_key: "session-a", max_output_tokens: 4
                })
            )
        );
        assert.deepEqual(delta(keyed, requestsPerUpstream()).toSorted(), [0, 3], "one cache key, one upstream (within the overload slack)");
    });

    it("spreads unrelated concurrent requests over both upstreams (least outstanding requests)", async () => {
        const before = requestsPerUpstream();
        await Promise.all(
            [0, 1, 2, 3].map(
                (index) => server.client.responses.create({model: "m", input: `Unrelated ${index} ${Math.random()}`, max_output_tokens: 24})
            )
        );
        const spread = delta(before, requestsPerUpstream());
        assert.ok(spread[0]! >= 1 && spread[1]! >= 1, `both used: ${spread.join(",")}`);
    });

    it("a request in flight on an upstream that dies ends with a clear error; the chain then moves to the other with "
        + "no failure", async () => {
        // A chain pinned by its cache key; find which upstream holds it.
        const before = requestsPerUpstream();
        const first = await server.client.responses.create({
            model: "m", input: "Anna found a key.", prompt_cache_key: "doomed", max_output_tokens: 4, store: true
        });
        const holder = delta(before, requestsPerUpstream()).findIndex((count) => count > 0);
        assert.ok(holder >= 0);

        const res = await server.fetch("/v1/responses", {method: "POST", json: {
            model: "m", input: "Tell me a long story.", prompt_cache_key: "doomed", max_output_tokens: 1800, stream: true
        }});
        const events: SseEvent[] = [];
        const started = Date.now();
        for await (const event of sseEvents(res)) {
            events.push(event);
            if (event.type === "response.output_text.delta"
                && events.filter((seen) => seen.type === "response.output_text.delta").length === 1)
                void upstreams[holder]!.stop("SIGKILL");
        }
        const last = events.at(-1)!;
        assert.equal(last.type, "response.failed", `ended with ${last.type}`);
        assert.equal(last.response.error.code, "upstream_unavailable");
        assert.match(last.response.error.message, /closed the stream mid-response/);
        assert.ok(Date.now() - started < 30_000, "no hang");

        // The same chain continues on the other upstream: its history is in this server's store, not the dead one's cache.
        const other = 1 - holder;
        const moved = requestsPerUpstream();
        for (let turn = 0; turn < 3; turn++) {
            const next = await server.client.responses.create({
                model: "m", input: "And then?", previous_response_id: first.id, prompt_cache_key: "doomed", max_output_tokens: 4
            });
            assert.equal(next.status === "completed" || next.status === "incomplete", true, JSON.stringify(next.error));
        }
        const after = delta(moved, requestsPerUpstream());
        assert.equal(after[other], 3, `all on the live upstream: ${after.join(",")}`);
        const status = await (await server.fetch("/v1/status")).json() as {engine: {upstreams: {state: string}[]}};
        assert.equal(status.engine.upstreams[holder]!.state, "down");
        assert.equal(status.engine.upstreams[other]!.state, "up");
        const metrics = await (await server.fetch("/metrics")).text();
        assert.match(metrics, /local_responses_upstream_up\{upstream="http:\/\/127\.0\.0\.1:\d+"\} 0/);
    });
});

describe("upstream engine over llama-server --rpc (one model split over two rpc-servers)", () => {
    it("serves a Responses request through the distributed llama-server", {timeout: buildTimeoutMs}, async () => {
        const rpc = [await startRpcServer(), await startRpcServer()];
        // -lv 4 logs where each tensor buffer went ("RPC0[127.0.0.1:port] model buffer size = …").
        const upstream = await startLlamaServer({
            model: models.chatml, slots: 1, rpc: rpc.map((server) => server.url), extraArgs: ["-lv", "4"]
        });
        const server = await startTestServer({engine: "upstream", upstream: {...defaultConfig().upstream, urls: [upstream.url]}});
        try {
            for (const worker of rpc)
                assert.match(upstream.output(), new RegExp(`RPC\\d+\\[127\\.0\\.0\\.1:${worker.port}\\].*buffer size`),
                    "the model's weights went to both rpc-servers");
            const response = await server.client.responses.create({
                model: "m", input: "Once upon a time", max_output_tokens: 8, temperature: 0
            });
            assert.ok(response.output_text.length > 0);
            const stream = await server.client.responses.create({
                model: "m", input: "Once upon a time", max_output_tokens: 8, temperature: 0, stream: true
            });
            const types: string[] = [];
            for await (const event of stream)
                types.push(event.type);
            assert.ok(types.includes("response.output_text.delta"));
        } finally {
            await server.close();
            await upstream.stop();
            for (const server of rpc)
                await server.stop();
        }
    });
});
