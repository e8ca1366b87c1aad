import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {GenerationEvent} from "../../../src/engine/types.js";
import type {ResponseObject, StreamEvent} from "../../../src/protocol/wire.js";
import {PublicationBuffer} from "../../../src/responses/publication/PublicationBuffer.js";
import {ResponseAssembler} from "../../../src/responses/pipeline/ResponseAssembler.js";

const usage = {inputTokens: 3, cachedTokens: 0, outputTokens: 2, reasoningTokens: 0};

/** A response object as prepared: the assembler fills in its output, status and usage. */
function response(): ResponseObject {
    return {id: "resp_1", object: "response", status: "in_progress", output: [], usage: null, error: null, completed_at: null,
        incomplete_details: null} as unknown as ResponseObject;
}

function assembler(options: {holdContent?: boolean, customTools?: ReadonlySet<string>} = {}) {
    const events: StreamEvent[] = [];
    const assembled = new ResponseAssembler(response(),
        new PublicationBuffer((event) => events.push(event), {holdContent: options.holdContent}), {customTools: options.customTools});
    return {
        events, assembler: assembled, play: (...played: GenerationEvent[]) => played.forEach((event) => assembled.onEngineEvent(event))
    };
}

const types = (events: StreamEvent[]) => events.map((event) => event.type);

describe("ResponseAssembler", () => {
    it("opens and closes one item per run of events: reasoning, then a message, then a call", () => {
        const {events, assembler: assembled, play} = assembler();
        play({type: "thought", text: "hmm"}, {type: "thought.end"}, {type: "text", text: "Hi"}, {type: "call.start", index: 0, name: "f"},
            {type: "call.delta", index: 0, delta: "{}"}, {type: "call.end", index: 0});
        const done = assembled.complete("completed", usage);
        assert.deepEqual(done.output.map((item) => `${item.type}:${"status" in item ? item.status : ""}`),
            ["reasoning:completed", "message:completed", "function_call:completed"]);
        assert.equal(types(events).filter((type) => type === "response.output_item.done").length, 3);
        assert.equal(events.at(-1)!.type, "response.completed");
        assert.equal(done.usage?.total_tokens, 5);
    });

    it("a call the engine ends incomplete (it did not read to its end) is an incomplete item, without arguments done", () => {
        const {events, assembler: assembled, play} = assembler();
        play({type: "call.start", index: 0, name: "f"}, {type: "call.delta", index: 0, delta: "{\"a\":\"b"},
            {type: "call.end", index: 0, incomplete: true}, {type: "text", text: "<tool_call>…"});
        const done = assembled.complete("completed", usage);
        assert.deepEqual(done.output.map((item) => `${item.type}:${"status" in item ? item.status : ""}`),
            ["function_call:incomplete", "message:completed"]);
        assert.ok(!types(events).includes("response.function_call_arguments.done"));
    });

    it("a thought still open when the output limit cuts the response ends incomplete with it", () => {
        const {play, assembler: assembled} = assembler();
        play({type: "thought", text: "hmm, let me"});
        const done = assembled.complete("incomplete", usage, "max_output_tokens");
        assert.deepEqual(done.output.map((item) => `${item.type}:${"status" in item ? item.status : ""}`), ["reasoning:incomplete"]);
    });

    it("turns a freeform tool's call into a custom_tool_call whose decoded input streams", () => {
        const {events, assembler: assembled, play} = assembler({customTools: new Set(["shell"])});
        play({type: "call.start", index: 0, name: "shell"}, {type: "call.delta", index: 0, delta: "{\"input\":\"ls"},
            {type: "call.delta", index: 0, delta: " -l\"}"}, {type: "call.end", index: 0});
        const done = assembled.complete("completed", usage);
        assert.deepEqual(done.output[0], {
            type: "custom_tool_call", id: done.output[0]!.id, call_id: (done.output[0] as {call_id: string}).call_id, name: "shell",
            input: "ls -l", status: "completed"
        });
        const streamed = events.filter((event) => event.type === "response.custom_tool_call_input.delta")
            .map((event) => "delta" in event ? event.delta : "").join("");
        assert.equal(streamed, "ls -l");
    });

    it("withdraws the unvalidated part of a cut result while holding: the cut text leaves, a strict call stays without arguments", () => {
        const {events, assembler: assembled, play} = assembler({holdContent: true});
        play({type: "call.start", index: 0, name: "strict_tool"}, {type: "call.delta", index: 0, delta: "{\"a\":"},
            {type: "text", text: "{\"par"});
        assembled.withdrawCut({text: true, callArguments: (name) => name === "strict_tool"});
        const done = assembled.complete("incomplete", usage, "max_output_tokens");
        assert.deepEqual(done.output.map((item) => `${item.type}:${"status" in item ? item.status : ""}`), ["function_call:incomplete"]);
        assert.equal(done.output[0]!.type === "function_call" && done.output[0].arguments, "");
        assert.deepEqual(types(events).filter((type) => type !== "response.incomplete"),
            ["response.output_item.added", "response.output_item.done"]);
        assert.deepEqual(done.incomplete_details, {reason: "max_output_tokens"});
    });

    it("fails with nothing held published and an empty output", () => {
        const {events, assembler: assembled, play} = assembler({holdContent: true});
        play({type: "text", text: "{\"n\": \"three\"}"});
        const failed = assembled.fail("invalid_output", "not the schema", usage);
        assert.deepEqual(types(events), ["response.failed"]);
        assert.deepEqual(failed.output, []);
        assert.deepEqual(failed.error, {code: "invalid_output", message: "not the schema"});
    });
});
