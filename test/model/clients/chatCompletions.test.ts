import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import OpenAI, {BadRequestError} from "openai";
import {skipUpstream, startClientHarness, type ClientHarness} from "../../helpers/clientHarness.js";
import {models} from "../../helpers/paths.js";
import {weatherParameters} from "../../helpers/weatherTools.js";

const weatherTool: OpenAI.Chat.ChatCompletionFunctionTool = {
    type: "function",
    function: {
        name: "get_weather",
        description: "Get the current weather for a city",
        strict: true,
        parameters: weatherParameters
    }
};

const noForcedCalls = "llama-server does not force a tool call on the tiny models (docs/upstream.md)";

/** What a chat stream's chunks add up to: the text, and each tool call by its index. */
async function collect(stream: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>) {
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    const calls: {id?: string, name?: string, arguments: string}[] = [];
    let text = "";
    for await (const chunk of stream) {
        chunks.push(chunk);
        const delta = chunk.choices[0]?.delta;
        text += delta?.content ?? "";
        for (const call of delta?.tool_calls ?? []) {
            const entry = calls[call.index] ??= {arguments: ""};
            entry.id ??= call.id;
            entry.name ??= call.function?.name;
            entry.arguments += call.function?.arguments ?? "";
        }
    }
    return {chunks, text, calls, finish: chunks.findLast((chunk) => chunk.choices[0]?.finish_reason != null)?.choices[0]!.finish_reason};
}

/** `POST /v1/chat/completions` with the official `openai` SDK's `chat.completions`, on the same engine as Responses. */
describe("openai SDK chat.completions (real engine)", () => {
    let harness: ClientHarness;
    let client: OpenAI;
    before(async () => {
        harness = await startClientHarness({parallel: 2});
        client = new OpenAI({baseURL: harness.url, apiKey: harness.apiKey, maxRetries: 0, timeout: 60_000});
    });
    after(() => harness.close());

    it("create returns a chat.completion with the answer and usage", async () => {
        const completion = await client.chat.completions.create({
            model: "local-model", messages: [{role: "system", content: "Tell a story."}, {role: "user", content: "Once upon a time"}],
            max_tokens: 16
        });
        assert.equal(completion.object, "chat.completion");
        assert.match(completion.id, /^chatcmpl-/);
        const choice = completion.choices[0]!;
        assert.equal(choice.message.role, "assistant");
        assert.ok((choice.message.content ?? "").length > 0);
        assert.ok(choice.finish_reason === "stop" || choice.finish_reason === "length");
        assert.ok(completion.usage!.completion_tokens > 0 && completion.usage!.completion_tokens <= 16);
        assert.equal(completion.usage!.total_tokens, completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
        assert.equal(typeof completion.usage!.prompt_tokens_details!.cached_tokens, "number");
    });

    it("a stream with include_usage adds up to the same answer as a call without stream", async () => {
        const body = {
            model: "local-model", messages: [{role: "user" as const, content: "The little dog"}], max_tokens: 24, temperature: 0, seed: 7
        };
        const plain = await client.chat.completions.create(body);
        const stream = await client.chat.completions.create({...body, stream: true, stream_options: {include_usage: true}});
        const {chunks, text, finish} = await collect(stream);
        assert.equal(chunks[0]!.choices[0]!.delta.role, "assistant");
        assert.equal(text, plain.choices[0]!.message.content);
        assert.equal(finish, plain.choices[0]!.finish_reason);
        const last = chunks.at(-1)!;
        assert.deepEqual(last.choices, []);
        assert.equal(last.usage!.completion_tokens, plain.usage!.completion_tokens);
        assert.ok(chunks.slice(0, -1).every((chunk) => chunk.usage == null));
        assert.ok(chunks.every((chunk) => chunk.id === chunks[0]!.id && chunk.object === "chat.completion.chunk"));
    });

    it("the stream ends with data: [DONE]", async () => {
        const response = await harness.server.fetch("/v1/chat/completions", {
            method: "POST", json: {model: "local-model", messages: [{role: "user", content: "Hi"}], max_tokens: 4, stream: true}
        });
        assert.equal(response.status, 200);
        const body = await response.text();
        assert.ok(body.trimEnd().endsWith("data: [DONE]"), body);
        assert.ok(!body.includes("event:"), "chat chunks have no event lines");
    });

    it("streams beyond the free sequences wait their turn in the same queue, each complete", async () => {
        const streams = await Promise.all(["A dog", "A cat", "A bird", "A fish"].map((content) => client.chat.completions.create({
            model: "local-model", messages: [{role: "user", content}], max_tokens: 12, stream: true, stream_options: {include_usage: true}
        })));
        const results = await Promise.all(streams.map(collect));
        for (const {chunks, finish} of results) {
            assert.equal(chunks[0]!.choices[0]!.delta.role, "assistant");
            assert.ok(finish === "stop" || finish === "length");
            assert.ok(chunks.at(-1)!.usage!.completion_tokens > 0);
        }
    });

    it("finish_reason is length when max_tokens cuts the answer", async () => {
        const completion = await client.chat.completions.create({
            model: "local-model", messages: [{role: "user", content: "Tell me a long story"}], max_tokens: 2
        });
        assert.equal(completion.choices[0]!.finish_reason, "length");
        assert.equal(completion.usage!.completion_tokens, 2);
    });

    it("stop ends the answer before the stop sequence, and generation stops there", async () => {
        const greedy = {
            model: "local-model", messages: [{role: "user" as const, content: "Once upon a time"}], max_tokens: 24, temperature: 0
        };
        const free = await client.chat.completions.create(greedy);
        const text = free.choices[0]!.message.content!;
        const word = text.trim().split(/\s+/)[1];
        assert.ok(word != null && word.length > 0, `too short an answer to cut: ${JSON.stringify(text)}`);
        const cut = await client.chat.completions.create({...greedy, stop: word});
        assert.equal(cut.choices[0]!.message.content, text.slice(0, text.indexOf(word)));
        assert.equal(cut.choices[0]!.finish_reason, "stop");
        assert.ok(cut.usage!.completion_tokens < free.usage!.completion_tokens,
            `${cut.usage!.completion_tokens} of ${free.usage!.completion_tokens} tokens`);
    });

    it("a named tool_choice forces the call, and the tool result's turn answers", {skip: skipUpstream(noForcedCalls)}, async () => {
        const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{role: "user", content: "What is the weather in Paris? Use the tool."}];
        const first = await client.chat.completions.create({
            model: "local-model", messages, tools: [weatherTool], tool_choice: {type: "function", function: {name: "get_weather"}},
            max_tokens: 64
        });
        const choice = first.choices[0]!;
        assert.equal(choice.finish_reason, "tool_calls");
        const call = choice.message.tool_calls?.[0];
        assert.ok(call != null && call.type === "function", JSON.stringify(choice.message));
        assert.equal(call.function.name, "get_weather");
        assert.ok(["Paris", "Oslo", "Rome"].includes(JSON.parse(call.function.arguments).city));

        const second = await client.chat.completions.create({
            model: "local-model", tools: [weatherTool], max_tokens: 16,
            messages: [...messages, choice.message, {role: "tool", tool_call_id: call.id, content: "{\"conditions\":\"sunny\"}"}]
        });
        assert.ok(second.usage!.prompt_tokens > first.usage!.prompt_tokens);
        assert.ok(["stop", "length", "tool_calls"].includes(second.choices[0]!.finish_reason));
    });

    it("tool_choice required streams tool-call deltas that add up to valid JSON "
        + "arguments", {skip: skipUpstream(noForcedCalls)}, async () => {
        const stream = await client.chat.completions.create({
            model: "local-model", messages: [{role: "user", content: "Weather in Oslo?"}], tools: [weatherTool], tool_choice: "required",
            max_tokens: 64, stream: true
        });
        const {calls, finish, chunks} = await collect(stream);
        assert.equal(finish, "tool_calls");
        assert.ok(calls.length >= 1);
        assert.match(calls[0]!.id ?? "", /^call_/);
        assert.equal(calls[0]!.name, "get_weather");
        assert.equal(typeof JSON.parse(calls[0]!.arguments).city, "string");
        const argumentChunks = chunks.filter((chunk) => chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments);
        assert.ok(argumentChunks.length > 1, "arguments arrive in fragments");
    });

    it("a strict json_schema response_format answers JSON that matches the schema", {skip: skipUpstream("llama-server answers 400 to a "
        + "json_schema on the tiny models (docs/upstream.md)")}, async () => {
        const schema = {
            type: "object",
            properties: {city: {type: "string", enum: ["Oslo", "Bergen"]}, windy: {type: "boolean"}},
            required: ["city", "windy"],
            additionalProperties: false
        };
        const completion = await client.chat.completions.create({
            model: "local-model", messages: [{role: "user", content: "Invent a weather report for Oslo."}], max_tokens: 64,
            response_format: {type: "json_schema", json_schema: {name: "report", schema, strict: true}}
        });
        const parsed = JSON.parse(completion.choices[0]!.message.content!);
        assert.ok(["Oslo", "Bergen"].includes(parsed.city));
        assert.equal(typeof parsed.windy, "boolean");
    });

    it("the next turn reuses the prompt cached by the one before, as Responses turns do", async () => {
        const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
            {role: "system", content: `You tell stories. ${"Every story is kind and about animals. ".repeat(12)}`},
            {role: "user", content: "A story about a cat."}
        ];
        const first = await client.chat.completions.create({model: "local-model", messages, max_tokens: 8, temperature: 0});
        const second = await client.chat.completions.create({
            model: "local-model", max_tokens: 8, temperature: 0,
            messages: [...messages, first.choices[0]!.message, {role: "user", content: "And then?"}]
        });
        const cached = second.usage!.prompt_tokens_details!.cached_tokens!;
        assert.ok(cached >= first.usage!.prompt_tokens - 2, `cached ${cached} of the first turn's ${first.usage!.prompt_tokens}`);
    });

    it("response_format json_object answers a JSON object", {skip: skipUpstream("llama-server answers 400 to a json_schema on the tiny "
        + "models (docs/upstream.md)")}, async () => {
        const completion = await client.chat.completions.create({
            model: "local-model", messages: [{role: "user", content: "Describe a cat as JSON."}], max_tokens: 48, temperature: 0,
            response_format: {type: "json_object"}
        });
        const choice = completion.choices[0]!;
        if (choice.finish_reason === "stop")
            assert.equal(typeof JSON.parse(choice.message.content!), "object");
        else
            // A cut object is not valid JSON: it is withheld (content null) or, if sent, a JSON object's start.
            assert.match(choice.message.content ?? "{", /^\s*\{/);
    });

    it("tool_choice none answers in text with the tools offered", async () => {
        const completion = await client.chat.completions.create({
            model: "local-model", messages: [{role: "user", content: "Weather in Rome?"}], tools: [weatherTool], tool_choice: "none",
            max_tokens: 8
        });
        assert.equal(completion.choices[0]!.message.tool_calls, undefined);
        assert.notEqual(completion.choices[0]!.finish_reason, "tool_calls");
    });

    it("logprobs come back per token of the content", async () => {
        const completion = await client.chat.completions.create({
            model: "local-model", messages: [{role: "user", content: "A cat"}], max_tokens: 4, logprobs: true, top_logprobs: 2
        });
        const content = completion.choices[0]!.logprobs?.content;
        assert.ok(content != null && content.length > 0);
        assert.equal(content.map((entry) => entry.token).join(""), completion.choices[0]!.message.content);
        assert.ok(content.every((entry) => entry.top_logprobs.length === 2));
    });

    it("n: 2 is refused with a 400 in OpenAI's shape, before any generation", async () => {
        const error = await client.chat.completions.create({model: "local-model", messages: [{role: "user", content: "Hi"}], n: 2})
            .catch((caught) => caught);
        assert.ok(error instanceof BadRequestError, String(error));
        assert.equal(error.param, "n");
        assert.equal(typeof error.message, "string");
    });

    it("a body without messages is refused with a 400 naming it", async () => {
        const response = await harness.server.fetch("/v1/chat/completions", {method: "POST", json: {model: "local-model"}});
        assert.equal(response.status, 400);
        const body = await response.json() as {error: {message: string, type: string, param: string | null, code: string | null}};
        assert.equal(body.error.type, "invalid_request_error");
        assert.equal(body.error.param, "messages");
        assert.equal(body.error.code, "missing_required_parameter");
    });

    it("/metrics counts Chat Completions requests under their own route, and their tokens with every other", async () => {
        const metrics = await (await harness.server.fetch("/metrics")).text();
        assert.match(metrics, /local_responses_http_requests_total\{method="POST",route="\/chat\/completions",status="200"\} [1-9]/);
        assert.match(metrics, /local_responses_http_requests_total\{method="POST",route="\/chat\/completions",status="400"\} [1-9]/);
        assert.match(metrics, /local_responses_tokens_total\{protocol="chat_completions",kind="output"\} [1-9]/);
        assert.match(metrics, /local_responses_generations_total\{protocol="chat_completions",status="completed"\} [1-9]/);
    });

    it("nothing of a chat completion goes into the response store", async () => {
        const completion = await client.chat.completions.create({
            model: "local-model", messages: [{role: "user", content: "Hello"}], max_tokens: 2
        });
        const id = completion.id.replace(/^chatcmpl-/, "resp_");
        const response = await harness.server.fetch(`/v1/responses/${id}`);
        assert.equal(response.status, 404);
    });
});

/** A thinking model's thoughts come back as `reasoning_content`, as llama.cpp's server and vLLM send them. */
describe("openai SDK chat.completions on a thinking model (real engine)", () => {
    let harness: ClientHarness;
    let client: OpenAI;
    before(async () => {
        harness = await startClientHarness({model: models.think});
        client = new OpenAI({baseURL: harness.url, apiKey: harness.apiKey, maxRetries: 0, timeout: 60_000});
    });
    after(() => harness.close());

    const body = {
        model: "local-model", messages: [{role: "user" as const, content: "Tell me a story."}], max_tokens: 40,
        reasoning_effort: "low" as const, temperature: 0
    };

    it("reasoning_content carries the thought, and usage counts its tokens", async () => {
        const completion = await client.chat.completions.create(body);
        const message = completion.choices[0]!.message as OpenAI.Chat.ChatCompletionMessage & {reasoning_content?: string};
        assert.ok((message.reasoning_content ?? "").length > 0, JSON.stringify(message));
        assert.ok(completion.usage!.completion_tokens_details!.reasoning_tokens! > 0);

        // Sent back as llama.cpp's clients do: the assistant turn with its reasoning_content.
        const next = await client.chat.completions.create({
            ...body, max_tokens: 8,
            messages: [
                ...body.messages,
                {role: "assistant", content: message.content,
                    reasoning_content: message.reasoning_content} as OpenAI.Chat.ChatCompletionMessageParam,
                {role: "user", content: "And then?"}
            ]
        });
        assert.ok(next.usage!.prompt_tokens > completion.usage!.prompt_tokens);
    });

    it("streams reasoning_content deltas before the content, adding up to the same thought", async () => {
        const plain = await client.chat.completions.create(body);
        const stream = await client.chat.completions.create({...body, stream: true});
        const {chunks, text} = await collect(stream);
        const deltas = chunks.map((chunk) => chunk.choices[0]?.delta as {reasoning_content?: string, content?: string} | undefined);
        const thought = deltas.map((delta) => delta?.reasoning_content ?? "").join("");
        const plainMessage = plain.choices[0]!.message as {reasoning_content?: string};
        assert.equal(thought, plainMessage.reasoning_content);
        assert.equal(text, plain.choices[0]!.message.content ?? "");
        const firstThought = deltas.findIndex((delta) => delta?.reasoning_content != null);
        const firstText = deltas.findIndex((delta) => delta?.content != null && delta.content !== "");
        assert.ok(firstThought > 0 && (firstText === -1 || firstText > firstThought));
    });
});
