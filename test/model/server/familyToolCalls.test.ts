import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";
import {templateFamilies, templateModel} from "../../helpers/templateModel.js";
import {weatherParameters} from "../../helpers/weatherTools.js";

/**
 * Main families through the real server with `tool_choice: auto`: a scripted model (`--script call`, the family's real
 * template and vocabulary) writes its own call opener after the prompt, the way the real model would; the server must
 * read it as a call on Responses, Chat Completions (streamed) and Messages. Qwen3-Coder has no script (a bigram cannot
 * write its `\n` twice): Qwen3.5 stands for its `<function=` syntax. Granite 3.3's script stops inside the call
 * prefix (`{"name":` where the prefix is `{"name": "`), so it never opens a call. Then `--script think` models: reasoning.
 *
 * Families that write each argument apart (Qwen3.5's `<parameter=city>`, GLM's `<arg_key>`) generate freely and their
 * calls are read from the text (textCallFormats.ts, whose table test reads their whole native calls). Their scripts
 * write only the opener and then end the turn: the server must pass that unfinished call back as the model's text, not
 * make a call of it with node-llama-cpp's JSON grammar (the old path); a forced call still comes from the grammar.
 */
const callFamilies = ["gpt-oss", "kimi-k2", "devstral", "deepseek-v3.1"];
const textCallFamilies = ["qwen3.5", "glm-4.7-flash"];
const thinkFamilies = ["qwen3", "gpt-oss", "deepseek-r1-qwen"];
/**
 * Templates that close an empty thought in past turns: with thinking on (the default) the server opens the thought
 * instead (thoughtOpenedOnStart.ts), and these call scripts were made for the closed prompt, so they ask for none.
 */
const opensThoughtWhenThinking = ["glm-4.7-flash", "deepseek-v3.1"];

const tool = {name: "get_weather", description: "Get the weather for a city", parameters: weatherParameters};
const question = "What is the weather in Paris?";

/** The request fields the family's script needs to get the prompt it was made for (reasoning effort none for Qwen). */
type ScriptRequest = {reasoning?: {effort: string}};

function useFamilyServer(family: string, script: "call" | "think"): {server: () => TestServer, request: () => ScriptRequest} {
    let server: TestServer | undefined;
    let request: ScriptRequest = {};
    before(async () => {
        const {families} = await templateFamilies();
        request = (families[family].scripts?.[script]?.request
            ?? (script === "call" && opensThoughtWhenThinking.includes(family) ? {reasoning: {effort: "none"}} : {})) as ScriptRequest;
        server = await startTestServer({model: await templateModel(family, script), contextSize: 4096});
    });
    after(() => server?.close());
    return {server: () => server!, request: () => request};
}

type ChatChunk = {choices: {delta: {tool_calls?: {function?: {name?: string, arguments?: string}}[]}, finish_reason?: string}[]};

async function post(server: TestServer, path: string, json: object): Promise<Record<string, unknown>> {
    const response = await server.fetch(path, {method: "POST", json});
    const body = await response.text();
    assert.equal(response.status, 200, body);
    return JSON.parse(body) as Record<string, unknown>;
}

for (const family of callFamilies) {
    describe(`${family}: tool_choice auto reads the model's own call`, () => {
        const {server, request} = useFamilyServer(family, "call");
        const effort = (): string | undefined => request().reasoning?.effort;

        it("Responses", async () => {
            const body = await post(server(), "/v1/responses", {
                model: "m", input: question, tools: [{type: "function", ...tool}], tool_choice: "auto", temperature: 0,
                max_output_tokens: 64, ...request()
            });
            const calls = (body.output as {type: string, name?: string, arguments?: string}[])
                .filter((item) => item.type === "function_call");
            assert.equal(calls.length, 1, JSON.stringify(body.output));
            assert.equal(calls[0].name, "get_weather");
            assert.ok(weatherParameters.properties.city.enum.includes((JSON.parse(calls[0].arguments!) as {city: string}).city));
        });

        it("Chat Completions, streamed", async () => {
            const response = await server().fetch("/v1/chat/completions", {method: "POST", json: {
                model: "m", messages: [{role: "user", content: question}], tools: [{type: "function", function: tool}],
                tool_choice: "auto", temperature: 0, max_tokens: 64, stream: true,
                ...(effort() == null ? {} : {reasoning_effort: effort()})
            }});
            const events = (await response.text()).split("\n").filter((line) => line.startsWith("data: {"))
                .map((line) => JSON.parse(line.slice(6)) as ChatChunk);
            const deltas = events.flatMap((event) => event.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
            assert.equal(deltas.map((delta) => delta.function?.name ?? "").join(""), "get_weather", JSON.stringify(events));
            const args = JSON.parse(deltas.map((delta) => delta.function?.arguments ?? "").join("")) as {city: string};
            assert.ok(weatherParameters.properties.city.enum.includes(args.city));
            assert.equal(events.at(-1)?.choices[0]?.finish_reason, "tool_calls");
        });

        it("Messages", async () => {
            const body = await post(server(), "/v1/messages", {
                model: "m", max_tokens: 64, temperature: 0, messages: [{role: "user", content: question}],
                tools: [{name: tool.name, description: tool.description, input_schema: tool.parameters}], tool_choice: {type: "auto"},
                ...(effort() === "none" ? {thinking: {type: "disabled"}} : {})
            });
            const uses = (body.content as {type: string, name?: string}[]).filter((block) => block.type === "tool_use");
            assert.deepEqual(uses.map((use) => use.name), ["get_weather"], JSON.stringify(body.content));
            assert.equal(body.stop_reason, "tool_use");
        });
    });
}

for (const family of textCallFamilies) {
    describe(`${family}: tool_choice auto generates freely, the call is read from the text`, () => {
        const {server, request} = useFamilyServer(family, "call");
        const responses = (extra: object) => post(server(), "/v1/responses", {
            model: "m", input: question, tools: [{type: "function", ...tool}], temperature: 0, max_output_tokens: 64,
            ...request(), ...extra
        });
        type Item = {type: string, name?: string, arguments?: string, content?: {text: string}[]};

        it("Responses, auto: the model's unfinished call is its text", async () => {
            const body = await responses({tool_choice: "auto"});
            const output = body.output as Item[];
            assert.deepEqual(output.filter((item) => item.type === "function_call"), [], JSON.stringify(output));
            const text = output.filter((item) => item.type === "message")
                .flatMap((item) => item.content!.map((part) => part.text)).join("");
            assert.match(text, /^\s*<tool_call>/, JSON.stringify(output));
            assert.equal(body.status, "completed");
        });

        it("Chat Completions streamed, auto: no call deltas, the text streams", async () => {
            const response = await server().fetch("/v1/chat/completions", {method: "POST", json: {
                model: "m", messages: [{role: "user", content: question}], tools: [{type: "function", function: tool}],
                tool_choice: "auto", temperature: 0, max_tokens: 64, stream: true,
                ...(request().reasoning == null ? {} : {reasoning_effort: request().reasoning!.effort})
            }});
            const events = (await response.text()).split("\n").filter((line) => line.startsWith("data: {"))
                .map((line) => JSON.parse(line.slice(6)) as ChatChunk & {choices: {delta: {content?: string}}[]});
            assert.deepEqual(events.flatMap((event) => event.choices.flatMap((choice) => choice.delta.tool_calls ?? [])), []);
            assert.match(events.map((event) => event.choices[0]?.delta.content ?? "").join(""), /<tool_call>/);
            assert.equal(events.at(-1)?.choices[0]?.finish_reason, "stop");
        });

        it("Responses, required: a valid call from the grammar", async () => {
            const body = await responses({tool_choice: "required"});
            const calls = (body.output as Item[]).filter((item) => item.type === "function_call");
            assert.equal(calls.length, 1, JSON.stringify(body.output));
            assert.equal(calls[0].name, "get_weather");
            assert.ok(weatherParameters.properties.city.enum.includes((JSON.parse(calls[0].arguments!) as {city: string}).city));
        });
    });
}

/**
 * A whole per-argument call as the model writes it, where the family's call repeats no token (a bigram script of our
 * own can write it): GLM-4.7's `<tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value></tool_call>`.
 */
const wholeTextCalls: Record<string, string[]> = {
    "glm-4.7-flash": ["</think>", "<tool_call>", "get", "_weather", "<arg_key>", "city", "</arg_key>", "<arg_value>", "Paris",
        "</arg_value>", "</tool_call>"]
};

for (const [family, chain] of Object.entries(wholeTextCalls)) {
    describe(`${family}: the model's whole per-argument call, read from the text on every protocol`, () => {
        let server: TestServer | undefined;
        before(async () => {
            server = await startTestServer({model: await templateModel(family, {name: "textcall", chain}), contextSize: 4096});
        });
        after(() => server?.close());
        const none = {reasoning: {effort: "none"}};

        it("Responses", async () => {
            const body = await post(server!, "/v1/responses", {
                model: "m", input: question, tools: [{type: "function", ...tool}], tool_choice: "auto", temperature: 0,
                max_output_tokens: 64, ...none
            });
            const output = body.output as {type: string, name?: string, arguments?: string}[];
            assert.deepEqual(output.map((item) => item.type), ["function_call"], JSON.stringify(output));
            assert.equal(output[0]!.name, "get_weather");
            assert.deepEqual(JSON.parse(output[0]!.arguments!), {city: "Paris"});
        });

        it("Chat Completions, streamed: no text leaks, the call's deltas add up", async () => {
            const response = await server!.fetch("/v1/chat/completions", {method: "POST", json: {
                model: "m", messages: [{role: "user", content: question}], tools: [{type: "function", function: tool}],
                tool_choice: "auto", temperature: 0, max_tokens: 64, stream: true, reasoning_effort: "none"
            }});
            const events = (await response.text()).split("\n").filter((line) => line.startsWith("data: {"))
                .map((line) => JSON.parse(line.slice(6)) as ChatChunk & {choices: {delta: {content?: string}}[]});
            assert.equal(events.map((event) => event.choices[0]?.delta.content ?? "").join(""), "", JSON.stringify(events));
            const deltas = events.flatMap((event) => event.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
            assert.equal(deltas.map((delta) => delta.function?.name ?? "").join(""), "get_weather");
            assert.deepEqual(JSON.parse(deltas.map((delta) => delta.function?.arguments ?? "").join("")), {city: "Paris"});
            assert.equal(events.at(-1)?.choices[0]?.finish_reason, "tool_calls");
        });

        it("Messages", async () => {
            const body = await post(server!, "/v1/messages", {
                model: "m", max_tokens: 64, temperature: 0, messages: [{role: "user", content: question}],
                tools: [{name: tool.name, description: tool.description, input_schema: tool.parameters}], tool_choice: {type: "auto"},
                thinking: {type: "disabled"}
            });
            const content = body.content as {type: string, name?: string, input?: unknown}[];
            assert.deepEqual(content.map((block) => [block.type, block.name, block.input]), [["tool_use", "get_weather", {city: "Paris"}]]);
            assert.equal(body.stop_reason, "tool_use");
        });
    });
}

/** A thought as the model writes it after its own opener, for the templates that would close it (a script of our own). */
const thoughtAfterTurnStart: Record<string, string[]> = {
    "deepseek-v3.1": ["<｜Assistant｜>", "<think>", " So", "</think>", " Yes"],
    "glm-4.7-flash": ["<|assistant|>", "<think>", " hmm", "</think>", " Yes"]
};

for (const [family, chain] of Object.entries(thoughtAfterTurnStart)) {
    describe(`${family}: reasoning follows the request where the template would close the thought`, () => {
        let server: TestServer | undefined;
        before(async () => {
            server = await startTestServer({model: await templateModel(family, {name: "thought", chain}), contextSize: 4096});
        });
        after(() => server?.close());
        type Output = {type: string, summary?: {text: string}[], content?: {text: string}[]}[];
        const texts = (output: Output, type: string) => output.filter((item) => item.type === type)
            .flatMap((item) => (item.summary ?? item.content ?? []).map((part) => part.text.trim()));

        it("Responses, default effort: the thought opens and comes back as reasoning", async () => {
            const body = await post(server!, "/v1/responses", {model: "m", input: "Is it sunny?", temperature: 0, max_output_tokens: 32});
            const output = body.output as Output;
            assert.equal(output[0]?.type, "reasoning", JSON.stringify(output));
            assert.deepEqual(texts(output, "message"), ["Yes"], JSON.stringify(output));
        });

        it("Responses, effort none: the template's closed thought, no reasoning", async () => {
            const body = await post(server!, "/v1/responses", {
                model: "m", input: "Is it sunny?", temperature: 0, max_output_tokens: 32, reasoning: {effort: "none"}
            });
            const output = body.output as Output;
            assert.deepEqual(output.map((item) => item.type), ["message"], JSON.stringify(output));
            assert.deepEqual(texts(output, "message"), ["Yes"]);
        });

        it("Messages: thinking enabled gives a thinking block, disabled none", async () => {
            const ask = (thinking: object) => post(server!, "/v1/messages", {
                model: "m", max_tokens: 64, temperature: 0, messages: [{role: "user", content: "Is it sunny?"}], thinking
            });
            const on = (await ask({type: "enabled", budget_tokens: 32})).content as {type: string}[];
            const off = (await ask({type: "disabled"})).content as {type: string}[];
            assert.deepEqual(on.map((block) => block.type), ["thinking", "text"], JSON.stringify(on));
            assert.deepEqual(off.map((block) => block.type), ["text"], JSON.stringify(off));
        });
    });
}

for (const family of thinkFamilies) {
    describe(`${family}: the model's own thought comes back as reasoning`, () => {
        const {server} = useFamilyServer(family, "think");

        it("Responses: a reasoning item before the answer", async () => {
            const body = await post(server(), "/v1/responses", {model: "m", input: "Is it sunny?", temperature: 0, max_output_tokens: 32});
            const types = (body.output as {type: string}[]).map((item) => item.type);
            assert.equal(types[0], "reasoning", JSON.stringify(body.output));
        });
    });
}
