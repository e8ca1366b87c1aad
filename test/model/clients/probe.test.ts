import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import OpenAI from "openai";
import {startClientHarness, type ClientHarness} from "../../helpers/clientHarness.js";

/** What agents send to check that an endpoint is alive before their first real turn. */
describe("agent probes (openai SDK and raw fetch through the recording proxy)", () => {
    let harness: ClientHarness;
    let client: OpenAI;
    before(async () => {
        harness = await startClientHarness();
        client = new OpenAI({baseURL: harness.url, apiKey: harness.apiKey, maxRetries: 0});
    });
    after(() => harness.close());

    it("answers an empty input with max_output_tokens 1", async () => {
        const response = await client.responses.create({model: "probe", input: "", max_output_tokens: 1});
        assert.ok(["completed", "incomplete"].includes(response.status!), `status ${response.status}`);
        assert.ok(response.usage!.output_tokens <= 1);
        assert.ok(response.usage!.input_tokens > 0, "the chat template still renders a prompt");
        if (response.status === "incomplete")
            assert.equal(response.incomplete_details?.reason, "max_output_tokens");
    });

    it("answers an empty input list, streamed, with max_output_tokens 1", async () => {
        const stream = await client.responses.create({model: "probe", input: [], max_output_tokens: 1, stream: true});
        const types: string[] = [];
        for await (const event of stream)
            types.push(event.type);
        assert.equal(types[0], "response.created");
        assert.ok(["response.completed", "response.incomplete"].includes(types.at(-1)!), types.join(", "));
    });

    it("lists the loaded model on GET /v1/models and /models", async () => {
        const models = [];
        for await (const model of client.models.list())
            models.push(model);
        assert.equal(models.length, 1);
        assert.equal(models[0]!.object, "model");
        assert.equal(models[0]!.id, harness.server.host.model!.id);
        assert.equal(typeof models[0]!.owned_by, "string");
        assert.equal(typeof models[0]!.created, "number");

        const bare = await fetch(`${harness.proxy.origin}/models`, {headers: {authorization: `Bearer ${harness.apiKey}`}});
        assert.equal(bare.status, 200);
        assert.deepEqual((await bare.json()).data.map((model: {id: string}) => model.id), [models[0]!.id]);
        assert.equal((await client.models.retrieve(models[0]!.id)).id, models[0]!.id);
    });

    it("emitted only conformant objects and events", () => {
        const counts = harness.proxy.assertConformant();
        assert.ok(counts.responses >= 1 && counts.events >= 3, JSON.stringify(counts));
    });
});
