import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {setTimeout as sleep} from "node:timers/promises";
import {capturesDir} from "../../helpers/paths.js";
import {syntheticModel} from "../../helpers/syntheticModel.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

/** The captured Codex CLI request (~17k tokens here): minutes of prompt evaluation on a full-size model at 1 thread. */
const codexBody = JSON.parse(fs.readFileSync(path.join(capturesDir, "codex-request.json"), "utf8"));

/**
 * Issue 12 item 8: a Codex-sized request on a full-size model whose client goes away, or whose job is cancelled,
 * during prompt evaluation frees its sequence within 2 s (before, the sequence stayed busy for minutes).
 */
describe("aborting during a long prompt evaluation (full-size synthetic model, Codex request)", () => {
    let server: TestServer;
    before(async () => {
        server = await startTestServer({model: await syntheticModel(), contextSize: 24576, parallel: 1});
    });
    after(() => server?.close());

    async function busySequences(): Promise<number> {
        const status = await (await server.fetch("/v1/status")).json() as {engine: {sequences_busy: number}};
        return status.engine.sequences_busy;
    }

    /** Milliseconds until no sequence is busy, polling every 50 ms, at most `limitMs`. */
    async function msUntilIdle(limitMs: number): Promise<number> {
        const started = performance.now();
        while (performance.now() - started < limitMs) {
            if (await busySequences() === 0)
                return performance.now() - started;
            await sleep(50);
        }
        return Infinity;
    }

    it("frees the sequence within 2 s when a streaming client disconnects mid-prompt", async () => {
        const {origin, apiKey} = server;
        const request = http.request(`${origin}/v1/responses`, {
            method: "POST",
            headers: {"content-type": "application/json", authorization: `Bearer ${apiKey}`}
        });
        request.on("error", () => undefined);
        request.end(JSON.stringify({...codexBody, stream: true, store: false, max_output_tokens: 4}));
        const response = await new Promise<http.IncomingMessage>((resolve) => request.on("response", resolve));
        assert.equal(response.statusCode, 200);
        // Let prompt evaluation get well under way (several steps), then leave.
        await sleep(3000);
        assert.equal(await busySequences(), 1, "the prompt is still being evaluated");
        request.destroy();
        const idleAfterMs = await msUntilIdle(5000);
        assert.ok(idleAfterMs < 2000, `the sequence was freed ${idleAfterMs.toFixed(0)} ms after the client left`);
    });

    it("frees the sequence within 2 s when a background job is cancelled mid-prompt", async () => {
        const created = await server.fetch("/v1/responses",
            {method: "POST", json: {...codexBody, stream: false, background: true, store: true, max_output_tokens: 4}});
        assert.equal(created.status, 200);
        const {id} = await created.json() as {id: string};
        const started = performance.now();
        while (await busySequences() === 0 && performance.now() - started < 10_000)
            await sleep(50);
        await sleep(2000);
        assert.equal(await busySequences(), 1, "the job's prompt is being evaluated");
        const cancelled = await server.fetch(`/v1/responses/${id}/cancel`, {method: "POST"});
        assert.equal(cancelled.status, 200);
        const idleAfterMs = await msUntilIdle(5000);
        assert.ok(idleAfterMs < 2000, `the sequence was freed ${idleAfterMs.toFixed(0)} ms after the cancel`);
        const job = await (await server.fetch(`/v1/responses/${id}`)).json() as {status: string};
        assert.equal(job.status, "cancelled");
    });
});
