import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import OpenAI from "openai";
import {defaultConfig} from "../../../src/host/config.js";
import {LocalResponsesHost} from "../../../src/host/LocalResponsesHost.js";
import {models} from "../../helpers/paths.js";
import {syntheticModel} from "../../helpers/syntheticModel.js";
import {templateModel} from "../../helpers/templateModel.js";

/**
 * Raw completions, infill and embeddings through a model library whose models each run in their own process (the
 * default isolation): any model by `model`, loaded on demand, its calls across `ProcessEngine`'s IPC.
 */
describe("completions, infill and embeddings on a library of models in their own processes", () => {
    let host: LocalResponsesHost;
    let client: OpenAI;
    let ids: {chat: string, fim: string, embedding: string};

    before(async () => {
        const [fim, embedding] = [await templateModel("qwen2.5"), await syntheticModel("tiny-64", undefined, "mean")];
        const base = defaultConfig();
        host = new LocalResponsesHost({
            ...base, port: 0, threads: 1, contextSize: 2048, apiKeys: ["sk-raw"], modelPath: models.chatml,
            library: {...base.library, extraModelPaths: [fim, embedding], isolation: "process"}
        }, {});
        client = new OpenAI({baseURL: await host.start(), apiKey: "sk-raw", maxRetries: 0});
        const listed = (await client.models.list()).data.map((model) => model.id);
        const find = (part: string) => listed.find((id) => id.includes(part))!;
        ids = {chat: find("stories"), fim: find("qwen"), embedding: find("pooling")};
    });
    after(() => host?.dispose());

    it("routes each request to the model it names", async () => {
        const filled = await client.completions.create({model: ids.fim, prompt: "a = ", suffix: "\n", max_tokens: 3, temperature: 0});
        assert.equal(filled.model, ids.fim);
        assert.ok(filled.usage!.completion_tokens > 0);
        const streamed = await client.completions.create({model: ids.chat, prompt: "Once upon a time", max_tokens: 5, stream: true});
        let text = "";
        for await (const chunk of streamed)
            text += chunk.choices[0]?.text ?? "";
        assert.ok(text.length > 0);
        const embedded = await client.embeddings.create({model: ids.embedding, input: ["one", "two"], encoding_format: "float"});
        assert.deepEqual(embedded.data.map((item) => item.embedding.length), [64, 64]);
        await assert.rejects(client.completions.create({model: ids.chat, prompt: "x", suffix: "y"}), OpenAI.BadRequestError);
        await assert.rejects(client.completions.create({model: "no-such-model", prompt: "x"}), OpenAI.NotFoundError);
    });
});
