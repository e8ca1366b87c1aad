import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {EngineError} from "../../../src/engine/EngineError.js";
import {ChunkAccumulator} from "../../../src/engine/upstream/ChunkAccumulator.js";
import type {GenerationEvent} from "../../../src/engine/types.js";

function accumulate(chunks: object[], maxToolCalls?: number) {
    const events: GenerationEvent[] = [];
    let clock = 100;
    const accumulator = new ChunkAccumulator((event) => events.push(event), {maxToolCalls, now: () => clock});
    for (const chunk of chunks) {
        accumulator.push(chunk);
        clock += 10;
        if (accumulator.limitReached)
            break;
    }
    return {events, accumulator, result: accumulator.finish(false, 50)};
}

describe("Chat Completions chunks → engine events and result", () => {
    it("streams reasoning as thoughts closed by the answer, text as it comes, and reads usage with cached tokens", () => {
        const {events, result} = accumulate([
            {choices: [{delta: {role: "assistant", content: null}}]},
            {choices: [{delta: {reasoning_content: "think"}}]},
            {choices: [{delta: {reasoning: " more"}}]},
            {choices: [{delta: {content: "Hel"}}]},
            {choices: [{delta: {content: "lo"}, finish_reason: "stop"}]},
            {
                choices: [], usage: {
                    prompt_tokens: 20, completion_tokens: 4, prompt_tokens_details: {cached_tokens: 16},
                    completion_tokens_details: {reasoning_tokens: 2}
                }
            }
        ]);
        assert.deepEqual(events, [
            {type: "thought", text: "think"}, {type: "thought", text: " more"}, {type: "thought.end"},
            {type: "text", text: "Hel"}, {type: "text", text: "lo"}
        ]);
        assert.equal(result.stopReason, "stop");
        assert.equal(result.text, "Hello");
        assert.deepEqual(result.usage, {inputTokens: 20, cachedTokens: 16, outputTokens: 4, reasoningTokens: 2});
        assert.equal(result.timeToFirstTokenMs, 60);
    });

    it("leaves a thought cut by the output limit open (the response ends it incomplete), and ends one the model closed", () => {
        const cut = accumulate([{choices: [{delta: {reasoning_content: "think"}, finish_reason: "length"}]}]);
        assert.deepEqual(cut.events, [{type: "thought", text: "think"}]);
        assert.equal(cut.result.stopReason, "length");
        const ended = accumulate([{choices: [{delta: {reasoning_content: "think"}, finish_reason: "stop"}]}]);
        assert.deepEqual(ended.events, [{type: "thought", text: "think"}, {type: "thought.end"}]);
    });

    it("numbers tool calls in order, holds argument deltas until the name comes, and ends each once", () => {
        const {events, result} = accumulate([
            {choices: [{delta: {tool_calls: [{index: 0, id: "x", function: {arguments: "{\"a\""}}]}}]},
            {choices: [{delta: {tool_calls: [{index: 0, function: {name: "f"}}]}}]},
            {choices: [{delta: {tool_calls: [{index: 0, function: {arguments: ":1}"}}]}}]},
            {choices: [{delta: {tool_calls: [{index: 1, id: "y", function: {name: "g", arguments: "{}"}}]}}]},
            {choices: [{delta: {}, finish_reason: "tool_calls"}]}
        ]);
        assert.deepEqual(events, [
            {type: "call.start", index: 0, name: "f"}, {type: "call.delta", index: 0, delta: "{\"a\""},
            {type: "call.delta", index: 0, delta: ":1}"},
            {type: "call.end", index: 0}, {type: "call.start", index: 1, name: "g"}, {type: "call.delta", index: 1, delta: "{}"},
            {type: "call.end", index: 1}
        ]);
        assert.equal(result.stopReason, "tool_calls");
        assert.deepEqual(result.calls, [{name: "f", arguments: "{\"a\":1}"}, {name: "g", arguments: "{}"}]);
    });

    it("stops at max_tool_calls: the call past the limit is not reported", () => {
        const {events, accumulator, result} = accumulate([
            {choices: [{delta: {tool_calls: [{index: 0, function: {name: "f", arguments: "{}"}}]}}]},
            {choices: [{delta: {tool_calls: [{index: 1, function: {name: "g", arguments: "{}"}}]}}]},
            {choices: [{delta: {tool_calls: [{index: 1, function: {arguments: "more"}}]}}]}
        ], 1);
        assert.equal(accumulator.limitReached, true);
        assert.deepEqual(result.calls, [{name: "f", arguments: "{}"}]);
        assert.ok(!events.some((event) => "name" in event && event.name === "g"));
    });

    it("estimates usage when the upstream sends none, reads llama-server's cache_n, and maps finish_reason length", () => {
        const {result, accumulator} = accumulate([
            {choices: [{delta: {content: "a"}}]},
            {choices: [{delta: {content: "b"}, finish_reason: "length"}], timings: {cache_n: 9}}
        ]);
        assert.equal(accumulator.hasUsage, false);
        assert.equal(result.stopReason, "length");
        assert.equal(result.usage.outputTokens, 2);
        assert.equal(result.usage.cachedTokens, 9);
    });

    it("reads logprobs of answer tokens", () => {
        const {result} = accumulate([
            {
                choices: [
                    {
                        delta: {content: "a"},
                        logprobs: {content: [{token: "a", logprob: -0.5, bytes: [97], top_logprobs: [{token: "b", logprob: -1}]}]}
                    }
                ]
            }
        ]);
        assert.deepEqual(result.logprobs,
            [{token: "a", logprob: -0.5, bytes: [97], topLogprobs: [{token: "b", logprob: -1, bytes: [98]}]}]);
    });

    it("turns an error chunk into an upstream_error", () => {
        assert.throws(() => accumulate([{error: {message: "boom", code: 500}}]),
            (error: unknown) => error instanceof EngineError && error.kind === "upstream_error" && /boom/.test(error.message));
    });
});
