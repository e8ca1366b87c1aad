import assert from "node:assert/strict";
import {describe, it} from "node:test";
import OpenAI from "openai";
import {syntheticModel} from "../../helpers/syntheticModel.js";
import {useTestServer} from "../../helpers/testServer.js";

const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, value, index) => sum + value * b[index]!, 0);

/**
 * `POST /v1/embeddings` on an embedding model (`make-synthetic-model.mjs --shape tiny-64 --pooling mean`: 64 dimensions,
 * GGUF `llama.pooling_type` mean), through the real OpenAI SDK (which asks for base64 and decodes it) and raw requests.
 */
describe("POST /v1/embeddings (a mean-pooling embedding model)", () => {
    const server = useTestServer({model: undefined});
    let model: string;

    it("embeds each input with the model's dimension, the same vector for the same input whatever the batch", async () => {
        await server.host.loadModel(await syntheticModel("tiny-64", undefined, "mean"));
        model = (await server.client.models.list()).data[0]!.id;
        const batch = await server.client.embeddings.create({model, input: ["Once upon a time", "a little girl", "Once upon a time"]});
        assert.equal(batch.object, "list");
        assert.equal(batch.data.length, 3);
        assert.deepEqual(batch.data.map((item) => item.index), [0, 1, 2]);
        for (const item of batch.data)
            assert.equal(item.embedding.length, 64);
        assert.deepEqual(batch.data[0]!.embedding, batch.data[2]!.embedding);
        assert.notDeepEqual(batch.data[0]!.embedding, batch.data[1]!.embedding);
        const alone = await server.client.embeddings.create({model, input: "a little girl", encoding_format: "float"});
        assert.deepEqual(alone.data[0]!.embedding, batch.data[1]!.embedding);
        assert.ok(batch.usage.prompt_tokens > 0);
        assert.equal(batch.usage.total_tokens, batch.usage.prompt_tokens);
    });

    it("embeds token lists as the text they spell", async () => {
        const response = await server.fetch("/v1/embeddings", {method: "POST", json: {model, input: [[1, 2, 3, 4], [5, 6]]}});
        assert.equal(response.status, 200);
        const body = await response.json() as {data: {embedding: number[]}[], usage: {prompt_tokens: number}};
        assert.equal(body.data.length, 2);
        assert.equal(body.usage.prompt_tokens, 6);
        assert.equal(body.data[0]!.embedding.length, 64);
    });

    it("shortens vectors to `dimensions`, back to unit length; more than the model has is a 400", async () => {
        const short = await server.client.embeddings.create({model, input: "Once upon a time", dimensions: 16, encoding_format: "float"});
        const vector = short.data[0]!.embedding;
        assert.equal(vector.length, 16);
        assert.ok(Math.abs(dot(vector, vector) - 1) < 1e-5);
        await assert.rejects(server.client.embeddings.create({model, input: "x", dimensions: 65}), (error: unknown) => {
            assert.ok(error instanceof OpenAI.BadRequestError);
            assert.equal(error.param, "dimensions");
            return true;
        });
    });

    it("refuses a malformed input in OpenAI's shape", async () => {
        for (const input of ["", [], [[]], [1.5], {text: "x"}]) {
            const response = await server.fetch("/v1/embeddings", {method: "POST", json: {model, input}});
            assert.equal(response.status, 400, JSON.stringify(input));
            const body = await response.json() as {error: {type: string, param: string}};
            assert.equal(body.error.type, "invalid_request_error");
        }
    });
});

describe("a chat request to an embedding model without a chat template (Llama 3's vocabulary, mean pooling)", () => {
    const server = useTestServer({model: undefined});

    it("is a 400 naming `model`; its embeddings are served", async () => {
        await server.host.loadModel(await syntheticModel("tiny-64", "llama-bpe", "mean"));
        const model = (await server.client.models.list()).data[0]!.id;
        const chat = server.client.chat.completions.create({model, messages: [{role: "user", content: "Hi"}]});
        await assert.rejects(chat, (error: unknown) => {
            assert.ok(error instanceof OpenAI.BadRequestError);
            assert.equal(error.param, "model");
            assert.match(error.message, /embedding model/);
            return true;
        });
        const embedded = await server.client.embeddings.create({model, input: "Hi", encoding_format: "float"});
        assert.equal(embedded.data[0]!.embedding.length, 64);
    });
});
