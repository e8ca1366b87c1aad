import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {EngineError} from "../../../../src/engine/EngineError.js";
import {UpstreamEngine} from "../../../../src/engine/upstream/UpstreamEngine.js";
import {defaultConfig} from "../../../../src/host/config.js";
import {freePort} from "../../../helpers/llamaServer.js";
import {chunk, scriptedUpstream, sseHead, type Script} from "../../../helpers/scriptedUpstream.js";
import {readSse, startTestServer} from "../../../helpers/testServer.js";

/**
 * Failures real engines do not produce on demand (a malformed stream, a stream cut without [DONE], 429 with
 * Retry-After, an upstream that goes silent), from a scripted loopback HTTP server. The happy paths and a
 * real upstream dying are tested against llama-server in test/server/upstream*.test.ts.
 */

function expectKind(kind: EngineError["kind"], pattern?: RegExp) {
    return (error: unknown) => {
        assert.ok(error instanceof EngineError, String(error));
        assert.equal(error.kind, kind, error.message);
        if (pattern != null)
            assert.match(error.message, pattern);
        return true;
    };
}

describe("upstream engine failures (scripted upstream)", () => {
    let script: Script = () => undefined;
    let upstream: Awaited<ReturnType<typeof scriptedUpstream>>;
    let engine: UpstreamEngine;
    before(async () => {
        upstream = await scriptedUpstream(() => script);
        engine = new UpstreamEngine({urls: [upstream.url], timeoutSeconds: 1, healthIntervalMs: 60_000});
        await engine.load("");
    });
    after(async () => {
        await engine.dispose();
        await upstream.close();
    });
    const turns = [{role: "user" as const, text: "hi"}];

    it("reads the model and context from /v1/models and streams a normal answer", async () => {
        assert.equal(engine.model?.id, "scripted");
        assert.equal(engine.model?.contextSize, 4096);
        script = (_req, res) => {
            sseHead(res);
            res.write(chunk({content: "He"}));
            res.write(chunk({content: "llo"}, "stop"));
            res.end(`data: ${JSON.stringify({choices: [], usage: {prompt_tokens: 5, completion_tokens: 2}})}\n\ndata: [DONE]\n\n`);
        };
        const texts: string[] = [];
        const result = await engine.generate({turns, onEvent: (event) => event.type === "text" && texts.push(event.text)});
        assert.deepEqual(texts, ["He", "llo"]);
        assert.deepEqual(result.usage, {inputTokens: 5, cachedTokens: 0, outputTokens: 2, reasoningTokens: 0});
        assert.equal(upstream.requests.at(-1).model, "scripted");
        assert.deepEqual(upstream.requests.at(-1).stream_options, {include_usage: true});
    });

    it("a chunk that is not JSON fails the generation with a clear message", async () => {
        script = (_req, res) => {
            sseHead(res);
            res.write(chunk({content: "ok"}));
            res.end("data: {not json\n\n");
        };
        await assert.rejects(engine.generate({turns}), expectKind("upstream_error", /not JSON/));
    });

    it("a stream that ends without [DONE] is a failure, not a silently cut answer", async () => {
        script = (_req, res) => {
            sseHead(res);
            res.end(chunk({content: "half"}));
        };
        await assert.rejects(engine.generate({turns}), expectKind("upstream_error", /\[DONE\]/));
    });

    it("429 with Retry-After is passed on, and admission refuses with 429 during the wait", async () => {
        script = (_req, res) => {
            res.writeHead(429, {"content-type": "application/json", "retry-after": "30"});
            res.end(JSON.stringify({error: {message: "too many requests", type: "rate_limit"}}));
        };
        await assert.rejects(engine.generate({turns}), (error: unknown) => {
            expectKind("upstream_busy", /too many requests/)(error);
            assert.deepEqual((error as EngineError).details, {status: 429, retryAfterSeconds: 30});
            return true;
        });
        await assert.rejects(engine.acquire(turns, []), (error: unknown) => {
            expectKind("upstream_busy")(error);
            assert.equal((error as EngineError).details.status, 429);
            return true;
        });
        (engine as any).upstreams[0].busyUntil = 0;
    });

    it("an upstream that goes silent mid-stream times out (504) instead of hanging", async () => {
        script = (_req, res) => {
            sseHead(res);
            res.write(chunk({content: "and then"}));
        };
        const started = Date.now();
        await assert.rejects(engine.generate({turns}), expectKind("upstream_timeout", /sent nothing for 1 s/));
        assert.ok(Date.now() - started < 5000);
    });

    it("cancelling aborts the upstream request at once (the upstream sees its connection close)", async () => {
        script = (_req, res) => {
            sseHead(res);
            res.write(chunk({content: "a"}));
        };
        const closedBefore = upstream.closed();
        const controller = new AbortController();
        const generation = engine.generate({turns, signal: controller.signal, onEvent: () => controller.abort()});
        await assert.rejects(generation, expectKind("aborted"));
        const started = Date.now();
        while (upstream.closed() === closedBefore && Date.now() - started < 2000)
            await new Promise((resolve) => setTimeout(resolve, 10));
        assert.equal(upstream.closed(), closedBefore + 1);
        assert.equal(engine.stats().upstreams![0]!.outstanding, 0);
    });
});

describe("upstream engine failover (scripted upstream)", () => {
    it("a request whose upstream refuses connections goes to the next one; the dead one is marked down", async () => {
        const live = await scriptedUpstream(() => (_req, res) => {
            sseHead(res);
            res.end(`${chunk({content: "from live"}, "stop")}data: [DONE]\n\n`);
        });
        const deadUrl = `http://127.0.0.1:${await freePort()}`;
        const engine = new UpstreamEngine({urls: [deadUrl, live.url], healthIntervalMs: 60_000});
        try {
            await engine.load("");
            // Mark the dead one up (as if it died after the last health check) and make it the least busy.
            (engine as any).upstreams[0].state = "up";
            (engine as any).upstreams[1].outstanding = 1;
            const result = await engine.generate({turns: [{role: "user", text: "x"}]});
            (engine as any).upstreams[1].outstanding = 0;
            assert.equal(result.text, "from live");
            const [dead, alive] = engine.stats().upstreams!;
            assert.equal(dead!.state, "down");
            assert.match(dead!.lastError!, /cannot be reached/);
            assert.equal(alive!.state, "up");
        } finally {
            await engine.dispose();
            await live.close();
        }
    });
});

describe("upstream failures through the HTTP server", () => {
    it("without streaming, a malformed chunk or an error sent after the 200 headers is the request's 502 in OpenAI's shape", async () => {
        const failures: Script[] = [
            (_req, res) => {
                sseHead(res);
                res.write(chunk({content: "partial"}));
                res.end("data: [[[\n\n");
            },
            // llama-server reports a failure found after its headers as an SSE `error:` field.
            (_req, res) => {
                sseHead(res);
                res.write(chunk({content: "partial"}));
                res.end(`error: ${JSON.stringify({code: 500, message: "slot crashed", type: "server_error"})}\n\n`);
            }
        ];
        let current = failures[0]!;
        const upstream = await scriptedUpstream(() => current);
        const logged: string[] = [];
        const server = await startTestServer({
            engine: "upstream", upstream: {...defaultConfig().upstream, urls: [upstream.url]}, log: (line) => logged.push(line)
        });
        try {
            for (const [index, failure] of failures.entries()) {
                current = failure;
                const res = await server.fetch("/v1/responses", {method: "POST", json: {model: "scripted", input: "hi", store: true}});
                const body = await res.json() as any;
                assert.equal(res.status, 502, JSON.stringify(body));
                assert.equal(logged.filter((line) => line.includes(body.error.message)).length, 1, `logged once:\n${logged.join("\n")}`);
                assert.deepEqual(Object.keys(body.error).sort(), ["code", "message", "param", "type"]);
                assert.equal(body.error.code, "upstream_error");
                assert.match(body.error.message, index === 0 ? /not JSON/ : /error mid-stream: .*slot crashed/);
            }
            const listed = await (await server.fetch("/v1/status")).json() as {engine: {upstreams: {errors: number}[]}};
            assert.equal(listed.engine.upstreams[0]!.errors, 2);
        } finally {
            await server.close();
            await upstream.close();
        }
    });

    it("a malformed upstream stream ends the client's stream with response.failed, and nothing is stored", async () => {
        const upstream = await scriptedUpstream(() => (_req, res) => {
            sseHead(res);
            res.write(chunk({content: "partial"}));
            res.end("data: [[[\n\n");
        });
        const server = await startTestServer({engine: "upstream", upstream: {...defaultConfig().upstream, urls: [upstream.url]}});
        try {
            const res = await server.fetch("/v1/responses",
                {method: "POST", json: {model: "scripted", input: "hi", stream: true, store: true}});
            const events = await readSse(res);
            const failed = events.at(-1)!;
            assert.equal(failed.type, "response.failed");
            assert.equal(failed.response.error.code, "upstream_error");
            assert.match(failed.response.error.message, /not JSON/);
            const stored = await server.fetch(`/v1/responses/${failed.response.id}`);
            assert.equal(stored.status, 404, "a failed foreground response is not stored");
            const label = upstream.url.replace(/\/v1$/, "");
            const status = await (await server.fetch("/v1/status")).json() as {
                engine: {upstreams: {url: string, state: string, errors: number, last_error?: string, lastError?: string}[]}
            };
            assert.equal(status.engine.upstreams[0]!.url, label);
            assert.equal(status.engine.upstreams[0]!.errors, 1);
            const metrics = await (await server.fetch("/metrics")).text();
            assert.ok(metrics.includes(`local_responses_upstream_up{upstream="${label}"} 1`), metrics);
            assert.ok(metrics.includes(`local_responses_upstream_errors_total{upstream="${label}"} 1`));
            assert.ok(metrics.includes(`local_responses_upstream_requests_total{upstream="${label}"} 1`));
        } finally {
            await server.close();
            await upstream.close();
        }
    });
});
