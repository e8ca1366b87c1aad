import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
// @ts-expect-error: the parser ships no type declarations
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import {backendDefaults} from "../../../src/engine/engineDefaults.js";
import {isTerminal, pollUntil} from "../../helpers/background.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

type Family = {
    name: string, type: string,
    metrics: Array<{value?: string, labels?: Record<string, string>, count?: string, sum?: string, buckets?: Record<string, string>}>
};

describe("GET /v1/status and GET /metrics", () => {
    let server: TestServer;
    before(async () => {
        server = await startTestServer({parallel: 2});
        await server.client.responses.create({model: "m", input: "Once upon a time", max_output_tokens: 16});
        const job = await server.client.responses.create({model: "m", input: "hi", max_output_tokens: 4, background: true});
        await pollUntil(server, job.id, isTerminal);
        await server.client.conversations.create({});
        await server.fetch("/v1/responses/resp_missing");
    });
    after(() => server.close());

    it("exports Prometheus text a parser reads, with request, token, latency, queue, sequence, store and job figures", async () => {
        const res = await server.fetch("/metrics");
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type")!, /^text\/plain/);
        const text = await res.text();
        const families: Family[] = parsePrometheusTextFormat(text);
        const family = (name: string) => {
            const found = families.find((entry) => entry.name === `local_responses_${name}`);
            assert.ok(found, `metric local_responses_${name} is exported`);
            return found;
        };
        const value = (name: string, labels: Record<string, string> = {}) => Number(family(name).metrics
            .find((metric) => Object.entries(labels).every(([key, expected]) => metric.labels?.[key] === expected))?.value ?? NaN);

        assert.ok(value("http_requests_total", {method: "POST", route: "/responses", status: "200"}) >= 2);
        assert.ok(value("http_requests_total", {method: "GET", route: "/responses/:id", status: "404"}) >= 1, "ids never become labels");
        assert.equal(family("http_request_duration_seconds").type, "HISTOGRAM");
        assert.ok(value("tokens_total", {protocol: "responses", kind: "input"}) > 0);
        assert.ok(value("tokens_total", {protocol: "responses", kind: "output"}) > 0);
        assert.ok(family("generations_total").metrics.reduce((sum, metric) => sum + Number(metric.value), 0) >= 2);
        // The parser drops a labelled histogram's count: read it from the text.
        const histogramCount = (name: string) => Number(
            new RegExp(`^local_responses_${name}_count\\{protocol="responses"\\} (\\d+)$`, "m").exec(text)?.[1]
        );
        assert.equal(family("time_to_first_token_seconds").type, "HISTOGRAM");
        assert.ok(histogramCount("time_to_first_token_seconds") >= 2);
        assert.ok(histogramCount("generation_tokens_per_second") >= 2);
        assert.equal(value("sequences_total"), 2);
        assert.equal(value("sequences_busy"), 0);
        assert.equal(value("queue_depth"), 0);
        assert.equal(value("queue_limit"), 64);
        assert.equal(value("engine_ready"), 1);
        assert.ok(value("store_entries") >= 2);
        assert.ok(value("store_bytes") > 0);
        assert.ok(value("store_events_total", {event: "miss"}) >= 1);
        assert.equal(value("conversation_entries"), 1);
        assert.equal(value("background_jobs_total", {event: "submitted"}), 1);
        assert.equal(value("background_jobs_running"), 0);
        assert.equal(value("background_jobs_retained"), 1);
        assert.equal(value("background_stream_readers"), 0);
    });

    it("reports model, engine, store, conversation and job occupancy with cache counters in /v1/status", async () => {
        const status = await (await server.fetch("/v1/status")).json();
        assert.equal(status.object, "status");
        assert.equal(status.model.id, "stories260K");
        assert.equal(status.model.cache_type_k, "f16");
        assert.equal(status.model.batch_size, backendDefaults("cpu").batchSize, "the CPU's batch, none being set");
        assert.equal(status.engine.state, "ready");
        assert.equal(status.engine.sequences_total, 2);
        assert.deepEqual(status.engine.speculative, {kind: "off", drafted_tokens: 0, accepted_tokens: 0},
            "speculative decoding is off by default");
        assert.ok(status.protocols.responses.generations >= 2 && status.protocols.responses.output_tokens > 0,
            JSON.stringify(status.protocols));
        assert.ok(status.responses.entries >= 2);
        for (const key of ["hits", "misses", "evictions", "expirations"])
            assert.equal(typeof status.responses[key], "number");
        assert.equal(status.responses.max_entries, 1024);
        assert.equal(status.conversations.entries, 1);
        assert.equal(status.background.retained, 1);
        assert.equal(status.background.max_active, 64);
        assert.equal(status.stream_readers.max, 32);
        assert.equal((await server.fetch("/status")).status, 200, "also without /v1");
    });

    it("needs the API key like every route", async () => {
        assert.equal((await server.fetch("/metrics", {headers: {authorization: "Bearer wrong"}})).status, 401);
    });
});
