import assert from "node:assert/strict";
import {describe, it} from "node:test";
import OpenAI from "openai";
import {models} from "../../helpers/paths.js";
import {templateModel} from "../../helpers/templateModel.js";
import {useTestServer, type TestServer} from "../../helpers/testServer.js";

/** The served model's id, as clients name it. */
async function modelId(server: TestServer): Promise<string> {
    return (await server.client.models.list()).data[0]!.id;
}

/** A prompt long enough that a reused prefix is plain to see in `cached_tokens`. */
const longPrompt = "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n".repeat(12);

/**
 * `POST /v1/completions` and `POST /infill` on a model with Qwen2.5-Coder's tokenizer (FIM tokens and repository
 * tokens), through the real OpenAI SDK and llama.cpp's request shape: the text is noise (the model's weights are not
 * Qwen's), so structure and token counts are asserted, not text.
 */
describe("POST /v1/completions and /infill (Qwen2.5 tokenizer: FIM tokens)", () => {
    const server = useTestServer({model: undefined, apiKeys: ["sk-owner-a", "sk-owner-b"], parallel: 1, contextSize: 2048});
    let fimModel: string;

    it("completes a prompt (not streamed) with OpenAI's text_completion and usage", async () => {
        await server.host.loadModel(await templateModel("qwen2.5"));
        fimModel = await modelId(server);
        const completion = await server.client.completions.create({
            model: fimModel, prompt: "def add(a, b):", max_tokens: 8, temperature: 0
        });
        assert.equal(completion.object, "text_completion");
        assert.equal(completion.model, fimModel);
        assert.equal(completion.choices.length, 1);
        assert.equal(typeof completion.choices[0]!.text, "string");
        assert.ok(["stop", "length"].includes(completion.choices[0]!.finish_reason));
        assert.ok(completion.usage!.prompt_tokens > 0);
        assert.ok(completion.usage!.completion_tokens > 0 && completion.usage!.completion_tokens <= 8);
    });

    it("fills in the middle with `suffix`, streamed and not: the same greedy text", async () => {
        const body = {
            model: fimModel, prompt: "def add(a, b):\n    return a", suffix: "\n\nprint(add(1, 2))\n", max_tokens: 6, temperature: 0
        };
        const whole = await server.client.completions.create(body);
        const stream = await server.client.completions.create({...body, stream: true, stream_options: {include_usage: true}});
        let text = "";
        let finish: string | null = null;
        let usage: OpenAI.CompletionUsage | undefined;
        for await (const chunk of stream) {
            assert.equal(chunk.object, "text_completion");
            text += chunk.choices[0]?.text ?? "";
            finish = chunk.choices[0]?.finish_reason ?? finish;
            usage = chunk.usage ?? usage;
        }
        assert.equal(text, whole.choices[0]!.text);
        assert.equal(finish, whole.choices[0]!.finish_reason);
        assert.equal(usage?.completion_tokens, whole.usage!.completion_tokens);
        // <|fim_prefix|> prefix <|fim_suffix|> suffix <|fim_middle|>: the three FIM tokens beside the texts' tokens.
        const plain = await server.client.completions.create({...body, suffix: undefined, prompt: body.prompt + body.suffix});
        assert.equal(whole.usage!.prompt_tokens, plain.usage!.prompt_tokens + 3);
    });

    it("echoes the prompt with `echo`, and refuses n > 1 and logprobs in OpenAI's error shape", async () => {
        const echoed = await server.client.completions.create({model: fimModel, prompt: "x = ", max_tokens: 2, temperature: 0, echo: true});
        assert.ok(echoed.choices[0]!.text.startsWith("x = "));
        for (const extra of [{n: 2}, {logprobs: 2}]) {
            await assert.rejects(server.client.completions.create({model: fimModel, prompt: "x", ...extra}), (error: unknown) => {
                assert.ok(error instanceof OpenAI.BadRequestError);
                assert.equal(error.param, Object.keys(extra)[0]);
                return true;
            });
        }
    });

    it("keeps each key's prompt cache its own: another key reads none of what a completion wrote", async () => {
        const asKey = (apiKey: string) => new OpenAI({baseURL: server.url, apiKey, maxRetries: 0});
        const body = {model: fimModel, prompt: longPrompt, max_tokens: 2, temperature: 0};
        const first = await asKey("sk-owner-a").completions.create(body);
        const again = await asKey("sk-owner-a").completions.create(body);
        assert.ok(first.usage!.prompt_tokens > 100);
        assert.ok(again.usage!.prompt_tokens_details!.cached_tokens! > 100, "the same key reuses its prefix");
        const other = await asKey("sk-owner-b").completions.create(body);
        assert.equal(other.usage!.prompt_tokens_details!.cached_tokens, 0);
    });

    it("answers llama.cpp's /infill (and /v1/infill) with input_extra: content, stop, counts and timings", async () => {
        const request = {
            input_prefix: "import {x} from \"./a\";\nconst y = ", input_suffix: ";\n", prompt: "x",
            input_extra: [{filename: "src/a.ts", text: "export const x = 1;\n"}],
            n_predict: 5, temperature: 0, top_k: 40, top_p: 0.99, cache_prompt: true, t_max_predict_ms: 500,
            samplers: ["top_k", "top_p", "infill"], n_indent: 0, t_max_prompt_ms: 500, response_fields: ["content"]
        };
        for (const path of ["/infill", "/v1/infill"]) {
            const response = await server.fetch(path, {method: "POST", json: request});
            assert.equal(response.status, 200);
            const answer = await response.json() as Record<string, any>;
            assert.equal(typeof answer.content, "string");
            assert.equal(answer.stop, true);
            assert.ok(answer.tokens_predicted > 0 && answer.tokens_predicted <= 5);
            assert.ok(answer.tokens_evaluated > 20);
            assert.equal(answer.timings.predicted_n, answer.tokens_predicted);
            assert.ok(answer.timings.prompt_n >= 0 && answer.timings.prompt_n <= answer.tokens_evaluated);
        }
        const streamed = await server.fetch("/infill", {method: "POST", json: {...request, stream: true}});
        const lines = (await streamed.text()).split("\n").filter((line) => line.startsWith("data: "))
            .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
        assert.equal(lines.at(-1)?.stop, true);
        assert.ok(lines.slice(0, -1).every((line) => line.stop === false));
    });
});

describe("POST /v1/completions with a suffix, on a model without FIM tokens", () => {
    const server = useTestServer({model: models.chatml});

    it("is a 400 naming `suffix`, before any generation", async () => {
        const model = await modelId(server);
        await assert.rejects(server.client.completions.create({model, prompt: "Once upon", suffix: "the end."}), (error: unknown) => {
            assert.ok(error instanceof OpenAI.BadRequestError);
            assert.equal(error.param, "suffix");
            assert.match(error.message, /fill-in-the-middle/);
            return true;
        });
        const plain = await server.client.completions.create({model, prompt: "Once upon", max_tokens: 4});
        assert.ok(plain.usage!.completion_tokens > 0);
    });
});
