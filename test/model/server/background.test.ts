import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {assertValidResponse, assertValidStream} from "../../helpers/conformance.js";
import {backgroundSettings, isTerminal, longGeneration, pollUntil, sseEvents, type SseEvent} from "../../helpers/background.js";
import {type TestServer, startTestServer, useTestServer} from "../../helpers/testServer.js";

describe("background responses (real engine, openai SDK)", () => {
    const server = useTestServer({contextSize: 4096, parallel: 2});

    it("answers queued at once, hides output until terminal, then polls to completed", async () => {
        const created = await server.client.responses.create({
            model: "m", input: "Once upon a time", max_output_tokens: 24, background: true
        });
        assertValidResponse(created);
        assert.equal(created.status, "queued");
        assert.equal(created.background, true);
        assert.deepEqual(created.output, []);
        const finished = await server.client.responses.retrieve(created.id).then(async (first) => {
            assert.equal(first.background, true);
            if (!isTerminal(first)) {
                assert.deepEqual(first.output, [], "no partial output while the job runs");
                assert.equal(first.usage?.total_tokens, 0);
            }
            return pollUntil(server, created.id, isTerminal);
        });
        assertValidResponse(finished);
        assert.ok(["completed", "incomplete"].includes(finished.status));
        assert.equal(finished.background, true);
        assert.ok(finished.output.length > 0);
        assert.ok(finished.usage.output_tokens > 0);
        const chained = await server.client.responses.create({
            model: "m", input: "And then?", previous_response_id: created.id, max_output_tokens: 4
        });
        assert.equal(chained.previous_response_id, created.id, "a finished job chains like any stored response");
    });

    it("streams a job, goes on when the reader leaves, and replays after `starting_after` on reconnect", async () => {
        const controller = new AbortController();
        const res = await server.fetch("/v1/responses", {
            method: "POST", json: {...longGeneration({max_output_tokens: 600}), background: true, stream: true}, signal: controller.signal
        });
        assert.equal(res.status, 200);
        const first: SseEvent[] = [];
        for await (const event of sseEvents(res)) {
            first.push(event);
            if (event.type === "response.output_text.delta")
                break;
        }
        controller.abort();
        const id = first[0]!.response.id;
        assert.deepEqual(first.slice(0, 3).map((event) => event.type), ["response.created", "response.queued", "response.in_progress"]);
        const cursor = first.at(-1)!.sequence_number;

        const rest: SseEvent[] = [];
        const stream = await server.client.responses.retrieve(id, {stream: true, starting_after: cursor});
        for await (const event of stream)
            rest.push(event as unknown as SseEvent);
        assert.equal(rest[0]!.sequence_number, cursor + 1, "replay starts strictly after the cursor");
        const all = [...first, ...rest];
        all.forEach((event, index) => assert.equal(event.sequence_number, index, "no event skipped or repeated"));
        assertValidStream(all);
        assert.ok(["response.completed", "response.incomplete"].includes(all.at(-1)!.type));
        const final = await server.client.responses.retrieve(id);
        assert.ok(isTerminal(final), "the job finished although its first reader left");
        assert.equal(final.output_text,
            all.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta).join(""));
    });

    it("cancels a running job: the stream ends with response_cancelled, the sequence is free, the response cannot be "
        + "continued", async () => {
        const res = await server.fetch("/v1/responses", {method: "POST", json: {...longGeneration(), background: true, stream: true}});
        const events: SseEvent[] = [];
        let id = "";
        let cancelled: any;
        for await (const event of sseEvents(res)) {
            events.push(event);
            id ||= event.response?.id;
            if (event.type === "response.output_text.delta" && cancelled == null) {
                cancelled = await server.client.responses.cancel(id);
                assert.equal(server.host.engine.stats().sequencesBusy, 0,
                    "cancelled is published only after the engine let go of the sequence");
            }
        }
        assert.equal(cancelled.status, "cancelled");
        assertValidResponse(cancelled);
        const last = events.at(-1)!;
        assert.equal(last.type, "error");
        assert.equal(last.code, "response_cancelled");
        assertValidStream(events);
        assert.equal((await server.client.responses.cancel(id)).status, "cancelled", "cancel is idempotent");
        assert.equal((await server.client.responses.retrieve(id)).status, "cancelled");

        const chain = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: "go on", previous_response_id: id}});
        assert.equal(chain.status, 400);
        assert.match((await chain.json()).error.message, /cancelled/);
        assert.equal((await server.fetch(`/v1/responses/${id}`, {method: "DELETE"})).status, 200);
        const after = await server.client.responses.create({model: "m", input: "hi", max_output_tokens: 4});
        assert.ok(isTerminal(after) && after.output.length > 0, "the freed sequence serves the next request");
    });

    it("refuses to cancel a foreground response and 404s an unknown one", async () => {
        const plain = await server.client.responses.create({model: "m", input: "hi", max_output_tokens: 2});
        assert.equal((await server.fetch(`/v1/responses/${plain.id}/cancel`, {method: "POST"})).status, 400);
        assert.equal((await server.fetch("/v1/responses/resp_nope/cancel", {method: "POST"})).status, 404);
    });
});

describe("background queueing on one sequence", () => {
    const server = useTestServer({contextSize: 4096, parallel: 1, background: backgroundSettings({workers: 2})});

    it("a queued job is cancelled without ever starting; an active one cannot be deleted or chained", async () => {
        const running = await server.client.responses.create({...longGeneration(), background: true} as any);
        await pollUntil(server, running.id, (response) => response.status === "in_progress");
        const waiting = await server.client.responses.create({model: "m", input: "hi", max_output_tokens: 4, background: true});
        assert.equal((await server.client.responses.retrieve(waiting.id)).status, "queued", "it waits for the only sequence");

        const chain = await server.fetch("/v1/responses",
            {method: "POST", json: {model: "m", input: "x", previous_response_id: running.id}});
        assert.equal(chain.status, 400);
        assert.match((await chain.json()).error.message, /has not finished \(status: in_progress\)/);
        const removal = await server.fetch(`/v1/responses/${running.id}`, {method: "DELETE"});
        assert.equal(removal.status, 409);

        const cancelled = await server.client.responses.cancel(waiting.id);
        assert.equal(cancelled.status, "cancelled");
        const replay = await server.fetch(`/v1/responses/${waiting.id}?stream=true`);
        const types = [];
        for await (const event of sseEvents(replay))
            types.push(event.type);
        assert.deepEqual(types, ["response.created", "response.queued", "error"], "never in progress");

        assert.equal((await server.client.responses.cancel(running.id)).status, "cancelled");
        assert.equal(server.host.engine.stats().sequencesBusy, 0);
    });

    it("a full generation queue answers 503", async () => {
        const busy = await startTestServer({contextSize: 4096, parallel: 1, queueLimit: 0});
        try {
            const running = await busy.client.responses.create({...longGeneration(), background: true} as any);
            await pollUntil(busy, running.id, (response) => response.status === "in_progress");
            const refused = await busy.fetch("/v1/responses", {method: "POST", json: {model: "m", input: "x", background: true}});
            assert.equal(refused.status, 503);
            await busy.client.responses.cancel(running.id);
        } finally {
            await busy.close();
        }
    });
});

describe("background limits", () => {
    let server: TestServer;
    before(async () => {
        server = await startTestServer({
            contextSize: 4096,
            background: backgroundSettings({maxJobsPerKey: 1, inputMaxBytes: 4096, eventMaxCount: 16, streamReadersPerKey: 1})
        });
    });
    after(() => server.close());

    it("429 beyond the active jobs of a key, 413 beyond the input snapshot, 429 beyond the readers of a key", async () => {
        const running = await server.client.responses.create({...longGeneration(), background: true} as any);
        const second = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: "x", background: true}});
        assert.equal(second.status, 429);
        assert.equal((await second.json()).error.code, "rate_limit_exceeded");

        const reader = new AbortController();
        const first = await server.fetch(`/v1/responses/${running.id}?stream=true`, {signal: reader.signal});
        assert.equal(first.status, 200);
        const another = await server.fetch(`/v1/responses/${running.id}?stream=true`);
        assert.equal(another.status, 429);
        reader.abort();
        await server.client.responses.cancel(running.id);

        const large = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: "x".repeat(5000), background: true}});
        assert.equal(large.status, 413);
    });

    it("410 for a cursor older than the retained events, 400 for a future one, 409 for a response without events", async () => {
        const job = await server.client.responses.create({
            model: "m", input: "Once upon a time", max_output_tokens: 40, temperature: 0, background: true
        });
        await pollUntil(server, job.id, isTerminal);
        const gone = await server.fetch(`/v1/responses/${job.id}?stream=true&starting_after=0`);
        assert.equal(gone.status, 410);
        const future = await server.fetch(`/v1/responses/${job.id}?stream=true&starting_after=100000`);
        assert.equal(future.status, 400);
        const bad = await server.fetch(`/v1/responses/${job.id}?stream=true&starting_after=-3`);
        assert.equal(bad.status, 400);
        const plain = await server.client.responses.create({model: "m", input: "hi", max_output_tokens: 2});
        assert.equal((await server.fetch(`/v1/responses/${plain.id}?stream=true`)).status, 409);
        assert.equal((await server.fetch("/v1/responses/resp_unknown?stream=true")).status, 404);
    });

    it("background mode off (0 jobs) or without a store is a 400; background with store:false is a 400", async () => {
        const off = await startTestServer({background: backgroundSettings({maxJobs: 0}), store: {maxEntries: 0}});
        try {
            const refused = await off.fetch("/v1/responses", {method: "POST", json: {model: "m", input: "x", background: true}});
            assert.equal(refused.status, 400);
        } finally {
            await off.close();
        }
        const explicit = await server.fetch("/v1/responses",
            {method: "POST", json: {model: "m", input: "x", background: true, store: false}});
        assert.equal(explicit.status, 400);
    });
});

describe("background shutdown", () => {
    it("closing the host cancels running jobs and waits for them", async () => {
        const server = await startTestServer({contextSize: 4096});
        const job = await server.client.responses.create({...longGeneration(), background: true} as any);
        await pollUntil(server, job.id, (response) => response.status === "in_progress");
        await server.close();
        assert.equal(server.host.jobs.stats().cancelled, 1);
        assert.equal(server.host.jobs.stats().running, 0);
    });
});
