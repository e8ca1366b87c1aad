import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import OpenAI, {NotFoundError} from "openai";
import {backgroundSettings, isTerminal, longGeneration, pollUntil} from "../../helpers/background.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

const otherKey = "sk-records-other-0123456789";

/** The text of every message among input items, in order. */
const texts = (items: any[]) => items.filter((item) => item.type === "message")
    .map((item) => item.content.map((part: any) => part.text).join(""));

describe("background job records as a source of history (real engine, openai SDK)", () => {
    let server: TestServer;
    let other: OpenAI;
    before(async () => {
        // One stored response at most: the next stored response evicts a finished job's copy from the store.
        server = await startTestServer({
            parallel: 1, apiKeys: ["sk-test-key", otherKey], store: {maxEntries: 1}, background: backgroundSettings({workers: 1})
        });
        other = new OpenAI({baseURL: server.url, apiKey: otherKey, maxRetries: 0});
    });
    after(() => server.close());

    it("serves the input items of a queued and of a running job, to its own key only", async () => {
        const running = await server.client.responses.create(
            {...longGeneration({input: "Tell me a long story about a fox."}), background: true} as any
        );
        const queued = await server.client.responses.create({
            model: "m", input: "A question that waits.", max_output_tokens: 2, background: true
        });
        await pollUntil(server, running.id, (response) => response.status === "in_progress");
        assert.equal((await server.client.responses.retrieve(queued.id)).status, "queued");

        for (const [job, text] of [[running, "Tell me a long story about a fox."], [queued, "A question that waits."]] as const) {
            const page = await server.client.responses.inputItems.list(job.id);
            assert.deepEqual(texts(page.data), [text]);
            await assert.rejects(other.responses.inputItems.list(job.id), NotFoundError);
        }
        await server.client.responses.cancel(queued.id);
        await server.client.responses.cancel(running.id);
    });

    it("a retained job supplies previous_response_id history and input items after the store evicted its copy", async () => {
        const job = await server.client.responses.create({
            model: "m", input: "Once upon a time", max_output_tokens: 8, temperature: 0, background: true
        });
        const finished = await pollUntil(server, job.id, isTerminal);
        assert.ok(finished.output.length > 0);
        await server.client.responses.create({model: "m", input: "An unrelated turn.", max_output_tokens: 2});
        assert.equal(server.host.store.inspect(job.id), undefined, "premise: the store evicted the job's response");

        assert.deepEqual(texts((await server.client.responses.inputItems.list(job.id)).data), ["Once upon a time"]);
        const chained = await server.client.responses.create({
            model: "m", input: "And then?", previous_response_id: job.id, max_output_tokens: 2
        });
        assert.equal(chained.previous_response_id, job.id);
        const history = (await server.client.responses.inputItems.list(chained.id, {order: "asc"})).data;
        assert.deepEqual(history.map((item) => item.id), [
            ...(await server.client.responses.inputItems.list(job.id, {order: "asc"})).data.map((item) => item.id),
            ...finished.output.map((item: {id: string}) => item.id),
            history.at(-1)!.id
        ], "the chained history is the job's input, its output, then the new input");
        assert.equal(texts(history).at(-1), "And then?");

        // A deleted job is gone for chaining too: the record does not outlive an explicit delete.
        await server.client.responses.delete(job.id);
        await assert.rejects(server.client.responses.create({model: "m", input: "x", previous_response_id: job.id}), NotFoundError);
    });
});
