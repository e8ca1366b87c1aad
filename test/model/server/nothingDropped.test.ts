import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";
import {templateFamilies, templateModel} from "../../helpers/templateModel.js";
import {weatherParameters} from "../../helpers/weatherTools.js";

/**
 * Issue 53, "nothing generated is ever dropped": every family's scripted models (`--script call|think`, the family's
 * real template and vocabulary) write their call or thought opener after whatever prompt the server renders, with
 * reasoning on (the default) and off, tools offered. Whatever the family and the prompt, the tokens the model wrote
 * must come back as a call, a reasoning item or text: never a finished response with output tokens and nothing in it.
 * One server per model, serving Responses, Chat Completions and Messages.
 */
const tool = {name: "get_weather", description: "Get the weather for a city", parameters: weatherParameters};
const question = "What is the weather in Paris?";

type Effort = "default" | "none";
type Item = {type: string, content?: {text: string}[], summary?: {text: string}[], arguments?: string};
type ChatMessage = {content?: string | null, reasoning_content?: string | null, tool_calls?: unknown[]};
type Block = {type: string, text?: string, thinking?: string, input?: unknown};

/** Every family with a script, and its scripts (families.mjs `scripts`; the first test checks the list is whole). */
const scriptedFamilies: Record<string, ("call" | "think")[]> = {
    "qwen2.5": ["call"], "qwen3": ["call", "think"], "qwq": ["call", "think"], "qwen3.5": ["call"], "gpt-oss": ["call", "think"],
    "glm-4.6": ["call", "think"], "glm-4.7-flash": ["call"], "llama-3.1": ["call"], "llama-3.3": ["call"], "llama-3.2": ["call"],
    "devstral": ["call"], "ministral-3-reasoning": ["call", "think"], "mistral-small-3.2": ["call"], "deepseek-v3.1": ["call"],
    "deepseek-r1-qwen": ["call", "think"], "gemma-4": ["call"], "granite-3.3": ["call"], "granite-4.0": ["call"],
    "seed-oss": ["think"], "kimi-k2": ["call"], "kimi-k2-thinking": ["call"], "nemotron-3-nano": ["call"]
};
const scripted = Object.entries(scriptedFamilies).flatMap(([family, scripts]) => scripts.map((script) => ({family, script})));

it("the list holds every family's every script", async () => {
    const {families} = await templateFamilies();
    const all = Object.fromEntries(Object.entries(families).filter(([, {scripts}]) => scripts != null)
        .map(([family, {scripts}]) => [family, (["call", "think"] as const).filter((script) => scripts?.[script] != null)]));
    assert.deepEqual(scriptedFamilies, all);
});

async function post(server: TestServer, path: string, json: object): Promise<Record<string, unknown>> {
    const response = await server.fetch(path, {method: "POST", json});
    const body = await response.text();
    assert.equal(response.status, 200, body);
    return JSON.parse(body) as Record<string, unknown>;
}

/**
 * The end-of-turn token counts as output: a model that ends its turn at once (a script whose chain does not start
 * where the prompt ends) reports 1 output token and rightly writes nothing.
 */
const endToken = 1;

function reasoningText(item: Item): string {
    return [...item.content ?? [], ...item.summary ?? []].map((part) => part.text).join("");
}

/** Whether an output item carries anything the model wrote. */
function holdsSomething(item: Item): boolean {
    if (item.type === "function_call")
        return true;
    return [...item.content ?? [], ...item.summary ?? []].some((part) => part.text !== "");
}

/**
 * The call scripts start from the prompt with thinking off; with thinking on, these families' servers open the thought
 * (thoughtOpenedOnStart.ts), and a script of our own writes the call opener right after it, inside the thought.
 */
const callInOpenedThought: Record<string, {opener: string, chain: string[]}> = {
    "deepseek-v3.1": {opener: "<｜tool▁calls▁begin｜>", chain: ["<think>", "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>"]},
    "kimi-k2-thinking": {opener: "<|tool_calls_section_begin|>", chain: ["<think>", "<|tool_calls_section_begin|>",
        "<|tool_call_begin|>", "functions", ".", "get", "_weather", ":", "0", "<|tool_call_argument_begin|>", "{\"", "city"]},
    "glm-4.7-flash": {opener: "<tool_call>", chain: ["<think>", "<tool_call>", "get", "_weather", "<arg_key>", "city", "</arg_key>",
        "<arg_value>", "Paris", "</arg_value>", "</tool_call>"]},
    "nemotron-3-nano": {opener: "<tool_call>", chain: ["\n", "<tool_call>", "<", "function", "=", "get", "_weather", ">"]}
};

type Model = {family: string, script: "call" | "think" | {name: string, chain: string[]}, opener?: string};
const models: Model[] = [...scripted, ...Object.entries(callInOpenedThought)
    .map(([family, {opener, chain}]) => ({family, script: {name: "thoughtcall", chain}, opener}))];

for (const {family, script, opener} of models) {
    const scriptName = typeof script === "string" ? script : script.name;
    describe(`${family} --script ${scriptName}: every generated token ends in a call, a reasoning item or text`, () => {
        let server: TestServer | undefined;
        before(async () => {
            server = await startTestServer({model: await templateModel(family, script), contextSize: 4096});
        });
        after(() => server?.close());

        for (const effort of ["default", "none"] as Effort[]) {
            it(`Responses, reasoning ${effort}`, async () => {
                const body = await post(server!, "/v1/responses", {
                    model: "m", input: question, tools: [{type: "function", ...tool}], tool_choice: "auto", temperature: 0,
                    max_output_tokens: 64, ...effort === "none" && {reasoning: {effort: "none"}}
                });
                const usage = body.usage as {output_tokens: number};
                const output = body.output as Item[];
                if (usage.output_tokens > endToken)
                    assert.ok(output.some(holdsSomething), `${usage.output_tokens} tokens, output ${JSON.stringify(output)}`);
                if (opener != null)
                    // The call the model opened in its thought ends the thought: a call, or (half written) text.
                    assert.ok(!output.some((item) => item.type === "reasoning" && reasoningText(item).includes(opener)),
                        JSON.stringify(output));
            });

            it(`Chat Completions, reasoning ${effort}`, async () => {
                const body = await post(server!, "/v1/chat/completions", {
                    model: "m", messages: [{role: "user", content: question}], tools: [{type: "function", function: tool}],
                    tool_choice: "auto", temperature: 0, max_tokens: 64, ...effort === "none" && {reasoning_effort: "none"}
                });
                const usage = body.usage as {completion_tokens: number};
                const {message} = (body.choices as {message: ChatMessage}[])[0]!;
                if (usage.completion_tokens > endToken)
                    assert.ok((message.tool_calls?.length ?? 0) > 0 || (message.content ?? "") !== ""
                        || (message.reasoning_content ?? "") !== "", `${usage.completion_tokens} tokens, ${JSON.stringify(message)}`);
            });

            it(`Messages, thinking ${effort === "none" ? "disabled" : "default"}`, async () => {
                const body = await post(server!, "/v1/messages", {
                    model: "m", max_tokens: 64, temperature: 0, messages: [{role: "user", content: question}],
                    tools: [{name: tool.name, description: tool.description, input_schema: tool.parameters}], tool_choice: {type: "auto"},
                    ...effort === "none" && {thinking: {type: "disabled"}}
                });
                const usage = body.usage as {output_tokens: number};
                const content = body.content as Block[];
                if (usage.output_tokens > endToken)
                    assert.ok(content.some((block) => block.type === "tool_use" || (block.text ?? block.thinking ?? "") !== ""),
                        `${usage.output_tokens} tokens, ${JSON.stringify(content)}`);
            });
        }
    });
}
