import assert from "node:assert/strict";
import {setTimeout as delay} from "node:timers/promises";
import {after, before, describe, it} from "node:test";
import OpenAI, {RateLimitError} from "openai";
import {
    backgroundSettings, isTerminal, longGeneration, pollUntil, sseEvents, type SseEvent, unendingGeneration
} from "../../helpers/background.js";
import {syntheticModel} from "../../helpers/syntheticModel.js";
import {startTestServer, type TestServer, type TestServerOptions} from "../../helpers/testServer.js";

// Every server here has one sequence and one worker: the first long job runs (seconds), the next ones wait `queued`,
// so which jobs are active when a limit is probed is decided by the test, not by timing.
const keyA = "sk-limits-alpha-0123456789";
const keyB = "sk-limits-bravo-0123456789";
const keyC = "sk-limits-charlie-012345678";

async function start(options: TestServerOptions): Promise<{server: TestServer, clients: Record<"a" | "b" | "c", OpenAI>}> {
    const server = await startTestServer({parallel: 1, apiKeys: [keyA, keyB, keyC], ...options});
    const client = (apiKey: string) => new OpenAI({baseURL: server.url, apiKey, maxRetries: 0, timeout: 60_000});
    return {server, clients: {a: client(keyA), b: client(keyB), c: client(keyC)}};
}

async function refusal(call: Promise<unknown>): Promise<RateLimitError> {
    const error = await call.then(() => assert.fail("expected a 429"), (reason: unknown) => reason);
    assert.ok(error instanceof RateLimitError, `expected RateLimitError, got ${String(error)}`);
    assert.equal(error.status, 429);
    assert.equal(error.code, "rate_limit_exceeded");
    return error;
}

/** A long background job of one client (queued or running at once: one sequence, one worker). */
const longJob = (client: OpenAI, extra: Record<string, unknown> = {}) => client.responses.create(
    {...longGeneration(extra), background: true} as any
);

describe("background limits through the server (real engine, openai SDK)", () => {
    it("429 once --responses-background-max-jobs are active across keys, though no key reached its own limit", async () => {
        const {server, clients} = await start({background: backgroundSettings({maxJobs: 2, maxJobsPerKey: 4, workers: 1})});
        try {
            const running = await longJob(clients.a);
            const waiting = await longJob(clients.b);
            assert.equal(server.host.jobs.stats().queued + server.host.jobs.stats().running, 2);

            const error = await refusal(clients.a.responses.create({model: "m", input: "x", max_output_tokens: 2, background: true}));
            assert.match(error.message, /2 background responses are already active \(limit 2\)/);
            assert.equal(server.host.jobs.stats().rejected, 1);

            // A slot frees as soon as a job is terminal: cancelling the queued one admits the next.
            assert.equal((await clients.b.responses.cancel(waiting.id)).status, "cancelled");
            const admitted = await longJob(clients.a);
            assert.equal(admitted.status, "queued");
            for (const id of [admitted.id, running.id])
                assert.equal((await clients.a.responses.cancel(id)).status, "cancelled");
            assert.equal(server.host.engine.stats().sequencesBusy, 0);
        } finally {
            await server.close();
        }
    });

    it("429 when the active jobs' bytes would exceed --responses-store-max-bytes; a smaller job still fits", async () => {
        const budget = 10_000;
        const {server, clients} = await start({store: {maxBytes: budget}, background: backgroundSettings({workers: 1})});
        // Metadata is echoed in the response object (counted in the job's snapshot) without lengthening the prompt.
        const metadata = Object.fromEntries(Array.from({length: 12}, (_, index) => [`k${index}`, "m".repeat(400)]));
        try {
            const big = await longJob(clients.a, {metadata});
            const oneBig = server.host.jobs.stats().activeBytes;
            assert.ok(oneBig <= budget && 2 * oneBig > budget, `premise: one ${oneBig}-byte job fits ${budget} bytes, two do not`);

            const error = await refusal(longJob(clients.b, {metadata}));
            assert.match(error.message, /store byte budget/);
            const small = await clients.b.responses.create({model: "m", input: "hi", max_output_tokens: 2, background: true});
            assert.equal(small.status, "queued", "bytes, not a count, refused the second big job");

            await clients.a.responses.cancel(big.id);
            await pollUntil(server, small.id, isTerminal, keyB);
            assert.equal(server.host.jobs.stats().activeBytes, 0);
            const later = await longJob(clients.b, {metadata});
            assert.equal(later.status, "queued", "once the active bytes are gone the big job is admitted");
            await clients.b.responses.cancel(later.id);
        } finally {
            await server.close();
        }
    });

    it("429 beyond the stream readers of a key and beyond the readers in total; a reader that leaves frees its slot", async () => {
        const {server, clients} = await start({background: backgroundSettings({workers: 1, streamReaders: 2, streamReadersPerKey: 1})});
        const status = async () => (await (await server.fetch("/v1/status")).json()).stream_readers.active as number;
        const readers: Array<{controller: AbortController}> = [];
        try {
            const jobs = {a: await longJob(clients.a), b: await longJob(clients.b), c: await longJob(clients.c)};
            readers.push(await clients.a.responses.retrieve(jobs.a.id, {stream: true}));
            const perKey = await refusal(clients.a.responses.retrieve(jobs.a.id, {stream: true}));
            assert.match(perKey.message, /This API key already reads 1 background streams \(limit 1\)/);

            readers.push(await clients.b.responses.retrieve(jobs.b.id, {stream: true}));
            assert.equal(await status(), 2);
            const total = await refusal(clients.c.responses.retrieve(jobs.c.id, {stream: true}));
            assert.match(total.message, /2 background streams are already being read \(limit 2\)/);

            // A streamed create needs a reader slot too, and a refused one creates no job.
            const submitted = server.host.jobs.stats().submitted;
            await refusal(clients.c.responses.create({model: "m", input: "x", max_output_tokens: 2, background: true, stream: true}));
            assert.equal(server.host.jobs.stats().submitted, submitted);

            readers.shift()!.controller.abort();
            while (await status() !== 1)
                await delay(20);
            const third = await clients.c.responses.retrieve(jobs.c.id, {stream: true});
            readers.push(third);
            assert.equal(await status(), 2);
            for (const key of ["c", "b", "a"] as const)
                await clients[key].responses.cancel(jobs[key].id);
        } finally {
            for (const reader of readers)
                reader.controller.abort();
            await server.close();
        }
    });
});

// The deadline is a second: the running job must still be generating then on any machine, so it runs on the
// full-size synthetic model (~14 s for an unending generation here) rather than the tiny one (~2 s here, and
// less on CI's machine, where the job completed before its deadline).
describe("background deadline (real engine)", () => {
    let server: TestServer;
    let client: OpenAI;
    before(async () => {
        (
            {server, clients: {a: client}} = await start({
                model: await syntheticModel(), background: backgroundSettings({workers: 1, deadlineSeconds: 1})
            })
        );
    });
    after(() => server.close());

    it("a running job and a queued one both end failed with job_timeout after --responses-background-deadline-secs", async () => {
        const res = await server.fetch("/v1/responses",
            {method: "POST", json: {...unendingGeneration(), background: true, stream: true}, headers: {authorization: `Bearer ${keyA}`}});
        const events: SseEvent[] = [];
        const reading = (async () => {
            for await (const event of sseEvents(res))
                events.push(event);
        })();
        while (events.length === 0)
            await delay(10);
        const waiting = await client.responses.create({...unendingGeneration(), background: true} as any);
        await reading;

        const running = await client.responses.retrieve(events[0]!.response.id);
        // The generation would run for seconds more (thousands of tokens): only the deadline ended it.
        assert.equal(running.status, "failed");
        assert.equal(running.error?.code, "job_timeout");
        assert.match(running.error!.message, /within 1 s/);
        assert.deepEqual(running.output, []);
        assert.equal(events.at(-1)!.type, "response.failed", "the stream ends with the failure");
        assert.equal(events.at(-1)!.response.error.code, "job_timeout");

        // The queued job may have started on the freed sequence an instant before its own deadline: it fails either way.
        const queued = await pollUntil(server, waiting.id, isTerminal, keyA);
        assert.equal(queued.status, "failed", "queue time counts towards the deadline");
        assert.equal(queued.error.code, "job_timeout");
        assert.equal(server.host.engine.stats().sequencesBusy, 0, "failed is published after the engine let go of the sequence");

        const chain = await server.fetch("/v1/responses", {
            method: "POST", json: {model: "m", input: "go on", previous_response_id: running.id}, headers: {authorization: `Bearer ${keyA}`}
        });
        assert.equal(chain.status, 400);
        assert.equal((await chain.json()).error.code, "previous_response_unusable");
        // The synthetic model's text is noise (it may end at once): the next request is served, whatever it writes.
        const after = await client.responses.create({model: "m", input: "hi", max_output_tokens: 4});
        assert.ok(after.status === "completed" || after.status === "incomplete", `the sequence serves the next request: ${after.status}`);
    });
});
