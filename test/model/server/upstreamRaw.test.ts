import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {defaultConfig} from "../../../src/host/config.js";
import {buildTimeoutMs, startLlamaServer, type LlamaServerProcess} from "../../helpers/llamaServer.js";
import {syntheticModel} from "../../helpers/syntheticModel.js";
import {templateModel} from "../../helpers/templateModel.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

async function postJson(url: string, body: unknown, apiKey?: string): Promise<{status: number, json: any}> {
    const response = await fetch(url, {
        method: "POST", body: JSON.stringify(body),
        headers: {"content-type": "application/json", ...apiKey == null ? {} : {authorization: `Bearer ${apiKey}`}}
    });
    return {status: response.status, json: await response.json()};
}

/** The text of an OpenAI `text_completion` stream or a llama.cpp `/infill` stream, and its last chunk. */
async function streamedText(url: string, body: unknown, apiKey: string): Promise<{text: string, last: any}> {
    const response = await fetch(url, {
        method: "POST", body: JSON.stringify({...body as object, stream: true}),
        headers: {"content-type": "application/json", authorization: `Bearer ${apiKey}`}
    });
    assert.equal(response.status, 200);
    let text = "";
    let last: any = null;
    for (const line of (await response.text()).split("\n")) {
        if (!line.startsWith("data: ") || line === "data: [DONE]")
            continue;
        last = JSON.parse(line.slice(6));
        text += last.content ?? last.choices?.[0]?.text ?? "";
    }
    return {text, last};
}

/**
 * Issue 52: the upstream engine passes text completions, fill in the middle and embeddings to the upstream's own
 * endpoints (`/v1/completions`, llama.cpp's `/infill`, `/v1/embeddings`). A real llama-server on a model with
 * Qwen2.5-Coder's FIM tokens, and another on a mean-pooling embedding model: what this server answers equals what the
 * upstream answers directly (greedy), streamed and not.
 */
describe("upstream engine: /v1/completions, /infill and /v1/embeddings on a real llama-server", () => {
    let coder: LlamaServerProcess;
    let embedder: LlamaServerProcess;
    let server: TestServer;
    let embeddings: TestServer;
    const prompt = "def add(a, b):\n    return a";
    const suffix = "\n\nprint(add(1, 2))\n";
    before(async () => {
        coder = await startLlamaServer({model: await templateModel("qwen2.5"), slots: 1});
        embedder = await startLlamaServer({
            model: await syntheticModel("tiny-64", undefined, "mean"), slots: 1, extraArgs: ["--embeddings"]
        });
        const upstream = (url: string) => ({...defaultConfig().upstream, urls: [`${url}/v1`], healthIntervalMs: 200, timeoutSeconds: 60});
        server = await startTestServer({engine: "upstream", upstream: upstream(coder.url), apiKeys: ["sk-raw"]});
        embeddings = await startTestServer({engine: "upstream", upstream: upstream(embedder.url), apiKeys: ["sk-raw"]});
    }, {timeout: buildTimeoutMs});
    after(async () => {
        await server?.close();
        await embeddings?.close();
        await coder?.stop();
        await embedder?.stop();
    });

    it("a prompt goes to the upstream's /v1/completions: its greedy text and usage, streamed and not", async () => {
        const body = {prompt: "def fibonacci(n):", max_tokens: 8, temperature: 0};
        const direct = await postJson(`${coder.url}/v1/completions`, body);
        assert.equal(direct.status, 200);
        const served = await postJson(`${server.origin}/v1/completions`, {...body, model: "ignored-by-one-upstream"}, "sk-raw");
        assert.equal(served.status, 200, JSON.stringify(served.json));
        assert.equal(served.json.object, "text_completion");
        assert.equal(served.json.choices[0].text, direct.json.choices[0].text);
        assert.equal(served.json.usage.prompt_tokens, direct.json.usage.prompt_tokens);
        assert.equal(served.json.usage.completion_tokens, direct.json.usage.completion_tokens);
        const streamed = await streamedText(`${server.origin}/v1/completions`, {...body, model: "m"}, "sk-raw");
        assert.equal(streamed.text, direct.json.choices[0].text);
    });

    it("`suffix` is filled in the middle by the upstream's /infill (the model's FIM tokens): its greedy middle", async () => {
        const direct = await postJson(`${coder.url}/infill`, {input_prefix: prompt, input_suffix: suffix, n_predict: 6, temperature: 0});
        assert.equal(direct.status, 200, JSON.stringify(direct.json));
        const served = await postJson(`${server.origin}/v1/completions`,
            {model: "m", prompt, suffix, max_tokens: 6, temperature: 0}, "sk-raw");
        assert.equal(served.status, 200, JSON.stringify(served.json));
        assert.equal(served.json.choices[0].text, direct.json.content);
        assert.equal(served.json.usage.completion_tokens, direct.json.tokens_predicted);
        // llama.vscode's request to this server's /infill, with another file's chunk, streamed: what llama-server answers.
        const extra = [{filename: "util.py", text: "def sub(a, b):\n    return a - b\n"}];
        const infill = {input_prefix: prompt, input_suffix: suffix, input_extra: extra, n_predict: 6, temperature: 0};
        const directExtra = await postJson(`${coder.url}/infill`, infill);
        const streamed = await streamedText(`${server.origin}/infill`, infill, "sk-raw");
        assert.equal(streamed.text, directExtra.json.content);
        assert.equal(streamed.last.stop, true);
        assert.equal(streamed.last.tokens_predicted, directExtra.json.tokens_predicted);
    });

    it("embeddings come from the upstream's /v1/embeddings: the same vectors, in order", async () => {
        const input = ["Once upon a time", "a little girl"];
        const direct = await postJson(`${embedder.url}/v1/embeddings`, {input, encoding_format: "float"});
        assert.equal(direct.status, 200, JSON.stringify(direct.json));
        const served = await postJson(`${embeddings.origin}/v1/embeddings`, {model: "m", input, encoding_format: "float"}, "sk-raw");
        assert.equal(served.status, 200, JSON.stringify(served.json));
        assert.equal(served.json.data.length, 2);
        assert.deepEqual(served.json.data.map((item: {embedding: number[]}) => item.embedding),
            direct.json.data.map((item: {embedding: number[]}) => item.embedding));
        assert.equal(served.json.data[0].embedding.length, 64);
        assert.ok(served.json.usage.prompt_tokens > 0);
    });

    it("fill in the middle where the upstream's model has no FIM tokens: a 400 with its words, nothing generated", async () => {
        // llama-server answers /infill with 501 for a model without FIM tokens (the embedding model has none).
        const refused = await postJson(`${embeddings.origin}/v1/completions`, {model: "m", prompt, suffix, max_tokens: 4}, "sk-raw");
        assert.equal(refused.status, 400, JSON.stringify(refused.json));
        assert.equal(refused.json.error.param, "suffix");
        assert.match(refused.json.error.message, /answered 501: Infill is not supported by this model.*cannot fill in the middle/);
        const models = await fetch(`${embeddings.origin}/v1/models`, {headers: {authorization: "Bearer sk-raw"}});
        assert.equal(models.status, 200);
    });
});
