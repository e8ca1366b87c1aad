import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {estimatePromptTokens, toChatCompletionsBody, toChatMessages} from "../../../src/engine/upstream/upstreamChatRequest.js";
import type {GenerationRequest} from "../../../src/engine/types.js";

describe("engine turns → Chat Completions messages", () => {
    it("maps roles, text around calls, calls with their tool_call_id results, and drops thoughts", () => {
        const messages = toChatMessages([
            {role: "system", text: "be brief"},
            {role: "user", text: "weather?"},
            {role: "model", parts: [
                {type: "thought", text: "I should call"},
                {type: "text", text: "Checking."},
                {type: "call", name: "get_weather", arguments: "{\"city\":\"Paris\"}", result: "sunny"},
                {type: "call", name: "apply_patch", arguments: "{\"input\":\"*** Begin Patch\"}", result: "done"},
                {type: "text", text: "Sunny, patched."}
            ]},
            {role: "user", text: "thanks"}
        ]);
        assert.deepEqual(messages, [
            {role: "system", content: "be brief"},
            {role: "user", content: "weather?"},
            {role: "assistant", content: "Checking.", tool_calls: [
                {id: "call_2_2", type: "function", function: {name: "get_weather", arguments: "{\"city\":\"Paris\"}"}},
                {id: "call_2_3", type: "function", function: {name: "apply_patch", arguments: "{\"input\":\"*** Begin Patch\"}"}}
            ]},
            {role: "tool", tool_call_id: "call_2_2", content: "sunny"},
            {role: "tool", tool_call_id: "call_2_3", content: "done"},
            {role: "assistant", content: "Sunny, patched."},
            {role: "user", content: "thanks"}
        ]);
    });

    it("gives the same history the same ids (an upstream prefix cache keeps matching along a chain)", () => {
        const turns = [
            {role: "user" as const, text: "a"},
            {role: "model" as const, parts: [{type: "call" as const, name: "f", arguments: "{}", result: "r"}]}
        ];
        assert.deepEqual(toChatMessages(turns), toChatMessages(structuredClone(turns)));
        assert.equal((toChatMessages(turns)[1] as {content: unknown}).content, null);
    });
});

describe("generation request → Chat Completions body", () => {
    const base: GenerationRequest = {turns: [{role: "user", text: "hi"}]};
    const tools = [{name: "a", parameters: {type: "object", properties: {x: {type: "string"}}}}, {name: "b", description: "B"}];

    it("streams with usage and maps sampling, output cap, stop and logprobs", () => {
        const body = toChatCompletionsBody({
            ...base, maxOutputTokens: 32, sampling: {temperature: 0, topP: 0.5, seed: 7, presencePenalty: 0, frequencyPenalty: 0.5},
            logprobs: {top: 3}
        }, {model: "m", stop: ["\n\n"]});
        assert.deepEqual(body, {
            model: "m", messages: [{role: "user", content: "hi"}], stream: true, stream_options: {include_usage: true},
            max_tokens: 32, temperature: 0, top_p: 0.5, seed: 7, frequency_penalty: 0.5, stop: ["\n\n"], logprobs: true, top_logprobs: 3
        });
    });

    it("maps tool modes: auto, required, a named call, allowed tools, and one call at most", () => {
        assert.equal(toChatCompletionsBody({...base, tools, toolMode: {type: "auto"}}, {model: "m"}).tool_choice, "auto");
        const required = toChatCompletionsBody({...base, tools, toolMode: {type: "required"}}, {model: "m"});
        assert.equal(required.tool_choice, "required");
        assert.equal(required.tools?.length, 2);
        assert.deepEqual(required.tools?.[1],
            {type: "function", function: {name: "b", description: "B", parameters: {type: "object", properties: {}}}});
        const named = toChatCompletionsBody({...base, tools, toolMode: {type: "required", names: ["b"]}, maxToolCalls: 1}, {model: "m"});
        assert.equal(named.tool_choice, "required", "a named call is required over that one tool (llama-server ignores the named form)");
        assert.deepEqual(named.tools?.map((tool) => tool.function.name), ["b"]);
        assert.equal(named.parallel_tool_calls, false);
        const allowed = toChatCompletionsBody({...base, tools: [...tools, {name: "c"}], toolMode: {type: "required", names: ["a", "c"]}},
            {model: "m"});
        assert.equal(allowed.tool_choice, "required");
        assert.deepEqual(allowed.tools?.map((tool) => tool.function.name), ["a", "c"]);
        assert.equal(toChatCompletionsBody({...base, tools: []}, {model: "m"}).tool_choice, undefined);
    });

    it("maps JSON output to response_format and a zero thought budget to enable_thinking false", () => {
        const schema = {type: "object", properties: {n: {type: "number"}}, required: ["n"]};
        assert.deepEqual(toChatCompletionsBody({...base, json: {type: "schema", schema}, thoughtBudget: 0}, {model: "m"}).response_format,
            {type: "json_schema", json_schema: {name: "output", schema, strict: true}});
        assert.deepEqual(toChatCompletionsBody({...base, json: {type: "object"}}, {model: "m"}).response_format, {type: "json_object"});
        assert.deepEqual(toChatCompletionsBody({...base, thoughtBudget: 0}, {model: "m"}).chat_template_kwargs, {enable_thinking: false});
        assert.equal(toChatCompletionsBody({...base, thoughtBudget: 1024}, {model: "m"}).chat_template_kwargs, undefined);
        const json = toChatCompletionsBody({...base, json: {type: "object"}, thoughtBudget: 1024, reasoningEffort: "high"}, {model: "m"});
        assert.deepEqual(json.chat_template_kwargs, {enable_thinking: false}, "JSON output turns thinking off, as with the local engine");
        assert.equal(json.reasoning_effort, undefined);
    });

    it("sends a named reasoning effort as reasoning_effort (low/medium/high) with this server's thought budget for it", () => {
        const sent = (reasoningEffort: GenerationRequest["reasoningEffort"], thoughtBudget?: number) => {
            const body = toChatCompletionsBody({...base, reasoningEffort, thoughtBudget}, {model: "m"});
            return [body.reasoning_effort, body.reasoning_budget_tokens, body.chat_template_kwargs];
        };
        assert.deepEqual(sent("minimal", 64), ["low", 64, undefined]);
        assert.deepEqual(sent("low", 256), ["low", 256, undefined]);
        assert.deepEqual(sent("medium", 1024), ["medium", 1024, undefined]);
        assert.deepEqual(sent("high", 20), ["high", 20, undefined]);
        assert.deepEqual(sent("xhigh", 8192), ["high", 8192, undefined]);
        assert.deepEqual(sent("none", 0), [undefined, undefined, {enable_thinking: false}]);
        assert.deepEqual(sent(undefined, 1024), [undefined, undefined, undefined], "no effort asked: the upstream's default");
    });

    it("estimates prompt tokens that grow with the prompt and the tools", () => {
        const short = estimatePromptTokens([{role: "user", text: "hi"}]);
        const long = estimatePromptTokens([{role: "user", text: "hi ".repeat(400)}]);
        assert.ok(short > 0 && long > short + 250, `${short} ${long}`);
        assert.ok(estimatePromptTokens([{role: "user", text: "hi"}], tools) > short);
    });
});
