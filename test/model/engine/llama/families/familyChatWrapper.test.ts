import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import type {ChatHistoryItem, ChatWrapper, Llama} from "node-llama-cpp";
import {resolveFamilyChatWrapper, type ChatFormat} from "../../../../../src/engine/llama/families/familyChatWrapper.js";
import {parseModelOutput, type ParsedModelOutput} from "../../../../../src/engine/llama/families/parseModelOutput.js";
import {TextCallReader} from "../../../../../src/engine/llama/families/TextCallReader.js";
import type {TextCallFormat, TextCallTools} from "../../../../../src/engine/llama/families/textCallFormats.js";
import {ChatWrapperVariants} from "../../../../../src/engine/llama/prompt/ChatWrapperVariants.js";
import {loadNodeLlamaCpp, type NodeLlamaCpp} from "../../../../../src/engine/models/loadBinding.js";
import {repoRoot} from "../../../../helpers/paths.js";
import {templateFamilies, templateModel} from "../../../../helpers/templateModel.js";

/**
 * llama.cpp's tests/test-chat.cpp for our engine: for every family of `../shared/models/templates/` (its real template
 * and vocabulary, no weights evaluated), the wrapper the engine chooses, and the family's own model outputs read with
 * that wrapper's settings (parseModelOutput, as LlamaChat reads them): calls, parallel calls, thoughts; the forced-call
 * prompt; a string tool result rendered as text. `expected` holds what each family does today: "native" (the model's
 * own call is read, arguments included), "text" (the same, for a family that writes each argument apart: it generates
 * freely and its calls are read from the answer's text, textCallFormats.ts; a call the template renders in the prompt
 * reads back as the same call), "opener" (the call is detected, but the model writes per-argument syntax where
 * LlamaChat's grammar only writes JSON: the arguments come from the grammar, not the model's own format), "none".
 * With LOCAL_RESPONSES_WRITE_RESULTS=1 the table is written to docs/models-results.json.
 */
const expected: Record<string, {wrapper: string, call: "native" | "text" | "opener" | "none", parallel?: string, thought?: string}> = {
    "qwen2.5": {wrapper: "Qwen", call: "native", parallel: "qwenJson"},
    "qwen3": {wrapper: "Qwen", call: "native", parallel: "qwenJson", thought: "<think>\nhmm\n</think>\n\nYes"},
    "qwen3-coder": {wrapper: "JinjaTemplate+qwen3-coder", call: "text", parallel: "qwenXml"},
    "qwen3.5": {wrapper: "Qwen+qwen3-coder", call: "text", parallel: "qwenXml", thought: "hmm\n</think>\n\nYes"},
    "qwq": {wrapper: "Qwen", call: "native", parallel: "qwenJson", thought: "<think>\nhmm\n</think>\n\nYes"},
    "gpt-oss": {wrapper: "Harmony", call: "native", thought: "<|channel|>analysis<|message|>hmm<|end|>"},
    "glm-4.6": {wrapper: "JinjaTemplate+glm-4.5", call: "text", parallel: "glm", thought: "hmm</think>\nYes"},
    "glm-4.7-flash": {wrapper: "JinjaTemplate+glm-4.5", call: "text", parallel: "glm",
        thought: "<think>hmm</think>Yes"},
    "llama-3.1": {wrapper: "Llama 3.1", call: "native"},
    "llama-3.3": {wrapper: "Llama 3.1", call: "native"},
    "llama-3.2": {wrapper: "Llama 3.2 lightweight", call: "native"},
    "devstral": {wrapper: "JinjaTemplate", call: "native", parallel: "mistral"},
    "mistral-small-3.2": {wrapper: "JinjaTemplate+mistral-args", call: "native"},
    "ministral-3-reasoning": {wrapper: "JinjaTemplate", call: "native", parallel: "mistral", thought: "[THINK]hmm[/THINK]Yes"},
    "deepseek-v3.1": {wrapper: "JinjaTemplate+deepseek-v3.1", call: "native", parallel: "deepSeekV31", thought: "<think>hmm</think>Yes"},
    "deepseek-r1-qwen": {wrapper: "DeepSeek+deepseek-r1", call: "native", parallel: "deepSeekR1", thought: "<think>\nhmm\n</think>\n\nYes"},
    "gemma-3": {wrapper: "Gemma", call: "none"},
    "gemma-4": {wrapper: "Gemma 4+gemma-4", call: "text", parallel: "gemma4", thought: "<|channel>thought\nhmm<channel|>Yes"},
    "phi-3.5": {wrapper: "JinjaTemplate", call: "none"},
    "granite-3.3": {wrapper: "JinjaTemplate+granite-3", call: "native", parallel: "granite", thought: "<think>hmm</think>Yes"},
    "granite-4.0": {wrapper: "JinjaTemplate", call: "native", parallel: "qwenJson"},
    "seed-oss": {wrapper: "Seed+seed-oss", call: "text", parallel: "seed", thought: "<seed:think>hmm</seed:think>Yes"},
    "kimi-k2": {wrapper: "JinjaTemplate+kimi-k2", call: "native", parallel: "kimi"},
    "kimi-k2-thinking": {wrapper: "JinjaTemplate+kimi-k2", call: "native", parallel: "kimi", thought: "<think>hmm</think>Yes"},
    "minimax-m2": {wrapper: "JinjaTemplate+minimax-m2", call: "text", parallel: "minimax", thought: "hmm\n</think>\n\nYes"},
    "nemotron-3-nano": {wrapper: "JinjaTemplate+qwen3-coder", call: "text", parallel: "qwenXml", thought: "<think>\nhmm\n</think>\nYes"},
    "command-r7b": {wrapper: "JinjaTemplate+command-r7b", call: "native", parallel: "commandR7b",
        thought: "<|START_THINKING|>hmm<|END_THINKING|>Yes"}
};

const weather = {name: "get_weather", arguments: {city: "Paris"}};
const time = {name: "get_time", arguments: {zone: "CET"}};
const functionNames = [weather.name, time.name];

/** Two calls in one answer, as each family writes them. */
const parallelOutputs: Record<string, string> = {
    qwenJson: "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n"
        + "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"CET\"}}\n</tool_call>",
    mistral: "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}[TOOL_CALLS]get_time[ARGS]{\"zone\": \"CET\"}",
    deepSeekV31: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜>"
        + "<｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{\"zone\": \"CET\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    deepSeekR1: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```"
        + "<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{\"zone\": \"CET\"}\n```<｜tool▁call▁end｜>"
        + "<｜tool▁calls▁end｜>",
    granite: "<|tool_call|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, "
        + "{\"name\": \"get_time\", \"arguments\": {\"zone\": \"CET\"}}]",
    kimi: "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}"
        + "<|tool_call_end|><|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>{\"zone\": \"CET\"}<|tool_call_end|>"
        + "<|tool_calls_section_end|>",
    qwenXml: "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n"
        + "<tool_call>\n<function=get_time>\n<parameter=zone>\nCET\n</parameter>\n</function>\n</tool_call>",
    glm: "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>\n"
        + "<tool_call>get_time\n<arg_key>zone</arg_key>\n<arg_value>CET</arg_value>\n</tool_call>",
    gemma4: "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}<tool_call|><|tool_call>call:get_time{zone:<|\"|>CET<|\"|>}<tool_call|>",
    seed: "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>"
        + "<seed:tool_call>\n<function=get_time>\n<parameter=zone>CET</parameter>\n</function>\n</seed:tool_call>",
    minimax: "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>\n"
        + "<invoke name=\"get_time\">\n<parameter name=\"zone\">CET</parameter>\n</invoke>\n</minimax:tool_call>",
    commandR7b: "<|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}},\n"
        + "    {\"tool_call_id\": \"1\", \"tool_name\": \"get_time\", \"parameters\": {\"zone\": \"CET\"}}\n]<|END_ACTION|>"
};

/**
 * Families whose second call LlamaChat does not detect: Command R7B numbers its calls inside the call prefix
 * (`"tool_call_id": "1"`), and LlamaChat detects a next call only by the prefix's exact text (`"0"`).
 */
const parallelGaps: Record<string, string> = {"command-r7b": "the call id is part of the detected prefix"};

const toolOutput = "total 2\n-rw-r--r-- 1 dev dev 12 \"notes.txt\"\n\tindented\\path";

type FamilyResult = {family: string, format: ChatFormat, call: string, parallel?: boolean, thought?: boolean, forced: boolean,
    resultAsText: boolean, toolsShown?: boolean, reasoning?: {on: boolean, off: boolean}};

describe("model families: template -> wrapper -> native outputs parsed (test-chat style, no weights evaluated)", () => {
    let binding: NodeLlamaCpp;
    let llama: Llama;
    const results: FamilyResult[] = [];
    before(async () => {
        binding = await loadNodeLlamaCpp();
        llama = await binding.getLlama({gpu: false, build: "never", maxThreads: 1});
    });
    after(async () => {
        await llama.dispose();
        console.log(results.map((r) => `${r.family.padEnd(22)} ${r.format.wrapper.padEnd(28)} call=${r.call} parallel=${r.parallel} `
            + `thought=${r.thought} forced=${r.forced} resultAsText=${r.resultAsText} `
            + `reasoning=${JSON.stringify(r.reasoning)} toolsShown=${r.toolsShown}`).join("\n"));
        if (process.env.LOCAL_RESPONSES_WRITE_RESULTS === "1")
            await fs.writeFile(path.join(repoRoot, "docs/models-results.json"), `${JSON.stringify(results, null, 1)}\n`);
    });

    for (const [family, expectation] of Object.entries(expected)) {
        it(family, async () => {
            const {nativeCalls} = await templateFamilies();
            const model = await llama.loadModel({modelPath: await templateModel(family)});
            try {
                const {wrapper: resolved, format, family: known} = resolveFamilyChatWrapper(binding, model);
                assert.equal(format.wrapper, expectation.wrapper);
                const variants = new ChatWrapperVariants(resolved, binding, model, known);
                // What the engine generates with by default: thinking on, calls read from the text for a text-call family.
                const wrapper = variants.for({});
                const textCalls = variants.textCalls;
                const parse = (output: string): ParsedModelOutput => textCalls == null
                    ? parseModelOutput(binding, wrapper, output, functionNames)
                    : readTextCalls(textCalls, parseModelOutput(binding, wrapper, output, functionNames));
                const native = nativeCalls[family];
                // Wrappers whose answers open inside a thought (the template opened it) see the call after the thought.
                const thoughtCloser = text(binding, wrapper.settings.segments?.thought?.suffix);
                const beforeCall = opensThoughtOnStart(wrapper) ? `hmm${thoughtCloser}` : "";
                const call = native == null ? undefined : parse(beforeCall + native);
                const callStatus = call == null || (call.calls.length === 0 && call.unreadCall == null) ? "none"
                    : call.calls.length === 1 && isDeepStrictEqual(call.calls[0], weather) ? textCalls == null ? "native" : "text"
                        : "opener";
                const result: FamilyResult = {family, format, call: callStatus, forced: false, resultAsText: false};
                results.push(result);
                if (expectation.parallel != null)
                    result.parallel = isDeepStrictEqual(parse(beforeCall + parallelOutputs[expectation.parallel]).calls, [weather, time]);
                if (expectation.thought != null) {
                    const thought = parse(expectation.thought);
                    result.thought = isDeepStrictEqual(thought.thoughts, ["hmm"])
                        && thought.text.trim() === (expectation.thought.endsWith("Yes") ? "Yes" : "");
                }
                result.forced = forcedPromptOpensCall(binding, variants.for({toolMode: {type: "required"}} as never));
                result.resultAsText = renderedWithResult(wrapper).includes(toolOutput);
                result.toolsShown = renderedWithResult(wrapper).includes(functions.get_weather.description);

                assert.equal(callStatus, expectation.call, JSON.stringify(call));
                if (expectation.parallel != null)
                    assert.equal(result.parallel, !(family in parallelGaps),
                        JSON.stringify(parse(beforeCall + parallelOutputs[expectation.parallel])));
                if (expectation.thought != null)
                    assert.ok(result.thought, JSON.stringify(parse(expectation.thought)));
                assert.ok(result.forced, "the forced prompt ends with the call opener");
                assert.ok(result.resultAsText, renderedWithResult(wrapper));
                if (family === "gemma-4") {
                    const prompt = renderedWithResult(wrapper);
                    assert.ok(prompt.includes("<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}<tool_call|>"), prompt);
                    const result = `<|tool_response>response:get_weather{value:<|"|>${toolOutput}<|"|>}<tool_response|>`;
                    assert.ok(prompt.includes(result), prompt);
                }
                if (family === "seed-oss")
                    assert.match(renderedWithResult(wrapper), /<seed:bos>user\nList the files/, "a user turn has the user's role");
                if (expectation.call !== "none")
                    assert.ok(result.toolsShown, `the prompt shows the tools: ${renderedWithResult(wrapper)}`);
                if (variants.thinks) {
                    if (family === "gpt-oss")
                        for (const [effort, line] of
                            [[undefined, "medium"], ["minimal", "low"], ["low", "low"], ["high", "high"], ["xhigh", "high"]]) {
                            const prompt = generationPrompt(variants.for({reasoningEffort: effort} as never));
                            assert.match(prompt, new RegExp(`Reasoning: ${line}\\b`), `effort ${effort} names ${line} in gpt-oss's prompt`);
                        }
                    const off = variants.for({thoughtBudget: 0});
                    result.reasoning = {on: !closesThought(binding, wrapper), off: closesThought(binding, off)};
                    if (expectation.thought != null)
                        assert.ok(result.reasoning.on, `thinking on leaves the thought to the model: ${generationPrompt(wrapper)}`);
                }
                if (textCalls != null) {
                    const prompt = renderedWithResult(wrapper);
                    assert.equal(prompt, renderedWithResult(resolved), "the free view renders the wrapper's own prompt");
                    // The last call in the prompt is the history's (a system prompt may show an example call first).
                    const start = prompt.lastIndexOf(textCalls.opener);
                    const end = prompt.indexOf(textCalls.closer, start);
                    assert.ok(start >= 0 && end > start, prompt);
                    assert.deepEqual(textCalls.parse(prompt.slice(start, end + textCalls.closer.length), toolsOf(functions)), [weather],
                        "the call the template renders in the prompt reads back as the same call");
                }
            } finally {
                await model.dispose();
            }
        });
    }
});

/** What the engine makes of a free-view answer: LlamaChat's thoughts, then its text read for calls by TextCallReader. */
function readTextCalls(format: TextCallFormat, parsed: ParsedModelOutput): ParsedModelOutput {
    let text = "";
    const ignore = () => undefined;
    const sink = {text: (part: string) => text += part, start: ignore, delta: ignore, end: ignore};
    const reader = new TextCallReader(format, toolsOf(functions), sink);
    reader.push(parsed.text);
    const calls = reader.finish().map((call) => ({name: call.name, arguments: call.arguments}));
    return {thoughts: parsed.thoughts, text, calls};
}

function toolsOf(offered: typeof functions): TextCallTools {
    return new Map(Object.entries(offered));
}

function isDeepStrictEqual(a: unknown, b: unknown): boolean {
    try {
        assert.deepStrictEqual(a, b);
        return true;
    } catch {
        return false;
    }
}

/** A wrapper setting's text (a string, a LlamaText or nothing) as a plain string. */
function text(binding: NodeLlamaCpp, value: unknown): string {
    return value == null ? "" : binding.LlamaText(value as never).toString();
}

function opensThoughtOnStart(wrapper: ChatWrapper): boolean {
    const thought = wrapper.settings.segments?.thought;
    return thought != null && (thought.openOnResponseStart === true
        || (typeof thought.prefix === "object" && "type" in thought.prefix && thought.prefix.type === "openedOnStart"));
}

const functions = {
    get_weather: {description: "Weather in a city", params: {type: "object", properties: {city: {type: "string"}}}},
    get_time: {description: "Time in a zone", params: {type: "object", properties: {zone: {type: "string"}}}}
} as const;

function generationPrompt(wrapper: ChatWrapper): string {
    return wrapper.generateContextState({chatHistory: [{type: "user", text: "Hi"}, {type: "model", response: []}]}).contextText.toString();
}

/** Whether the prompt ends with the thought closed, so that the model answers without thinking. */
function closesThought(binding: NodeLlamaCpp, wrapper: ChatWrapper): boolean {
    const closer = text(binding, wrapper.settings.segments?.thought?.suffix).trim();
    return closer !== "" && generationPrompt(wrapper).trimEnd().endsWith(closer);
}

/** The forced-call prompt ends with the wrapper's call opener (section prefix included), outside any open thought. */
function forcedPromptOpensCall(binding: NodeLlamaCpp, forced: ChatWrapper): boolean {
    const history: ChatHistoryItem[] = [{type: "user", text: "Weather in Paris?"}, {type: "model", response: []}];
    const prompt = forced.generateContextState({chatHistory: history, availableFunctions: functions, documentFunctionParams: true})
        .contextText.toString();
    const {call, parallelism} = forced.settings.functions;
    const opener = text(binding, parallelism?.call.sectionPrefix) + text(binding, call.prefix);
    return prompt.endsWith(opener);
}

/** The prompt after a call whose string result the client sent back. */
function renderedWithResult(wrapper: ChatWrapper): string {
    const history: ChatHistoryItem[] = [
        {type: "user", text: "List the files"},
        {type: "model", response: [{type: "functionCall", name: "get_weather", params: {city: "Paris"}, result: toolOutput}]}
    ];
    return wrapper.generateContextState({chatHistory: history, availableFunctions: functions, documentFunctionParams: true})
        .contextText.toString();
}
