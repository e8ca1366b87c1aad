import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {GenerationEvent} from "../../../src/engine/types.js";
import type {ChatCompletionChunk} from "../../../src/protocols/chat/chatWire.js";
import {ApiError} from "../../../src/protocol/errors.js";
import type {ResponseObject} from "../../../src/protocol/wire.js";
import {ChatChunkWriter} from "../../../src/protocols/chat/ChatChunkWriter.js";
import {toChatCompletion} from "../../../src/protocols/chat/chatCompletion.js";
import {parseChatRequest} from "../../../src/protocols/chat/chatRequest.js";
import {PublicationBuffer} from "../../../src/responses/publication/PublicationBuffer.js";
import {ResponseAssembler} from "../../../src/responses/pipeline/ResponseAssembler.js";

const usage = {inputTokens: 7, cachedTokens: 3, outputTokens: 5, reasoningTokens: 2};

function response(): ResponseObject {
    return {
        id: "resp_abc", object: "response", status: "in_progress", created_at: 1, model: "m", output: [], usage: null, error: null,
        completed_at: null, incomplete_details: null
    } as unknown as ResponseObject;
}

/** Plays engine events through a real assembler into a chunk writer: the chunks a stream would carry, and the response. */
function play(events: GenerationEvent[], status: "completed" | "incomplete" = "completed", includeUsage = false) {
    const chunks: ChatCompletionChunk[] = [];
    const writer = new ChatChunkWriter((chunk) => chunks.push(chunk), {includeUsage, logprobs: false});
    const assembler = new ResponseAssembler(response(), new PublicationBuffer((event) => writer.onEvent(event)));
    assembler.created();
    assembler.inProgress();
    events.forEach((event) => assembler.onEngineEvent(event));
    const done = assembler.complete(status, usage, status === "incomplete" ? "max_output_tokens" : undefined);
    return {chunks, done};
}

function refusal(body: unknown): ApiError {
    try {
        parseChatRequest(body);
    } catch (error) {
        assert.ok(error instanceof ApiError);
        return error;
    }
    assert.fail("accepted");
}

describe("Chat Completions → Responses request", () => {
    it("maps messages to input items: thoughts, text and calls of an assistant turn, tool results", () => {
        const {responsesBody} = parseChatRequest({
            model: "m",
            messages: [
                {role: "system", content: "Be brief."},
                {role: "user", content: [{type: "text", text: "Weather?"}]},
                {
                    role: "assistant", content: null, reasoning_content: "hmm",
                    tool_calls: [{id: "call_1", type: "function", function: {name: "f", arguments: "{}"}}]
                },
                {role: "tool", tool_call_id: "call_1", content: "sunny"}
            ]
        });
        assert.deepEqual(responsesBody.input, [
            {type: "message", role: "system", content: [{type: "input_text", text: "Be brief."}]},
            {type: "message", role: "user", content: [{type: "input_text", text: "Weather?"}]},
            {type: "reasoning", summary: [], content: [{type: "reasoning_text", text: "hmm"}]},
            {type: "function_call", call_id: "call_1", name: "f", arguments: "{}"},
            {type: "function_call_output", call_id: "call_1", output: [{type: "input_text", text: "sunny"}]}
        ]);
        assert.equal(responsesBody.store, false);
    });

    it("maps the settings: tokens, tools, tool_choice, response_format, logprobs, reasoning_effort", () => {
        const chat = parseChatRequest({
            messages: [{role: "user", content: "x"}], max_tokens: 9, max_completion_tokens: 5, stream: true,
            stream_options: {include_usage: true},
            tools: [{type: "function", function: {name: "f", parameters: {type: "object"}}}],
            tool_choice: {type: "function", function: {name: "f"}},
            response_format: {type: "json_schema", json_schema: {name: "r", schema: {type: "object"}, strict: true}},
            logprobs: true, top_logprobs: 2, reasoning_effort: "low", seed: 3
        });
        const body = chat.responsesBody;
        assert.equal(body.max_output_tokens, 5);
        assert.deepEqual(body.tools,
            [{type: "function", name: "f", description: undefined, parameters: {type: "object"}, strict: undefined}]);
        assert.deepEqual(body.tool_choice, {type: "function", name: "f"});
        assert.deepEqual(body.text, {format: {type: "json_schema", name: "r", schema: {type: "object"}, strict: true}});
        assert.deepEqual(body.include, ["message.output_text.logprobs"]);
        assert.equal(body.top_logprobs, 2);
        assert.deepEqual(body.reasoning, {effort: "low"});
        assert.equal(body.seed, 3);
        assert.deepEqual([chat.stream, chat.includeUsage, chat.logprobs], [true, true, true]);
    });

    it("stop as a string or an array becomes the request's stop sequences", () => {
        const messages = [{role: "user", content: "x"}];
        assert.deepEqual(parseChatRequest({model: "m", messages, stop: "END"}).stopSequences, ["END"]);
        assert.deepEqual(parseChatRequest({model: "m", messages, stop: [".", "\n"]}).stopSequences, [".", "\n"]);
        assert.deepEqual(parseChatRequest({model: "m", messages, stop: null}).stopSequences, []);
    });

    it("refuses what it cannot honour, naming the Chat Completions field", () => {
        const user = [{role: "user", content: "x"}];
        assert.equal(refusal({messages: user, n: 2}).param, "n");
        assert.equal(refusal({messages: user, stop: ["a", "b", "c", "d", "e"]}).param, "stop");
        assert.equal(refusal({messages: user, stop: ""}).param, "stop");
        assert.equal(refusal({model: "m"}).param, "messages");
        assert.equal(refusal({messages: []}).param, "messages");
        assert.equal(refusal({messages: [{role: "user", content: [{type: "image_url", image_url: {url: "x"}}]}]}).code,
            "unsupported_content_type");
        assert.equal(refusal({messages: user, tools: [{type: "custom", custom: {name: "x"}}]}).code, "unsupported_tool_type");
        assert.equal(refusal({messages: user, top_logprobs: 2}).param, "top_logprobs");
        assert.equal(refusal({messages: user, foo: 1}).code, "unknown_parameter");
        assert.equal(refusal({messages: [{role: "function", name: "f", content: "x"}]}).code, "unsupported_parameter");
    });
});

describe("Responses events → Chat Completions chunks", () => {
    it("streams the role, then thoughts, text and tool-call deltas, then the finish reason and the usage", () => {
        const {chunks} = play([
            {type: "thought", text: "hm"}, {type: "thought.end"}, {type: "text", text: "Hi"},
            {type: "call.start", index: 0, name: "f"}, {type: "call.delta", index: 0, delta: "{\"a\""},
            {type: "call.delta", index: 0, delta: ":1}"},
            {type: "call.end", index: 0}
        ], "completed", true);
        const deltas = chunks.map((chunk) => chunk.choices[0]?.delta);
        assert.deepEqual(deltas[0], {role: "assistant", content: "", refusal: null});
        assert.deepEqual(deltas[1], {reasoning_content: "hm"});
        assert.deepEqual(deltas[2], {content: "Hi"});
        assert.equal(deltas[3]!.tool_calls![0]!.index, 0);
        assert.equal(deltas[3]!.tool_calls![0]!.function.name, "f");
        assert.match(deltas[3]!.tool_calls![0]!.id!, /^call_/);
        assert.equal(deltas.slice(4, 6).map((delta) => delta!.tool_calls![0]!.function.arguments).join(""), "{\"a\":1}");
        assert.equal(chunks.at(-2)!.choices[0]!.finish_reason, "tool_calls");
        assert.deepEqual(chunks.at(-1)!.choices, []);
        assert.deepEqual(chunks.at(-1)!.usage, {
            prompt_tokens: 7, completion_tokens: 5, total_tokens: 12, prompt_tokens_details: {cached_tokens: 3},
            completion_tokens_details: {reasoning_tokens: 2}
        });
        assert.ok(chunks.every((chunk) => chunk.id === "chatcmpl-abc"));
    });

    it("a cut answer finishes with length, and the completion object says the same", () => {
        const {chunks, done} = play([{type: "text", text: "Once"}], "incomplete");
        assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, "length");
        assert.ok(chunks.every((chunk) => !("usage" in chunk)), "no usage field unless include_usage");
        const completion = toChatCompletion(done, {logprobs: false});
        assert.equal(completion.choices[0].finish_reason, "length");
        assert.equal(completion.choices[0].message.content, "Once");
    });

    it("a call the model left unfinished in a completed turn is no call in the completion object (its text follows)", () => {
        const {done} = play([
            {type: "call.start", index: 0, name: "f"}, {type: "call.delta", index: 0, delta: "{\"a\":"},
            {type: "call.end", index: 0, incomplete: true}, {type: "text", text: "<tool_call>f {\"a\":"}
        ]);
        const {message, finish_reason: finish} = toChatCompletion(done, {logprobs: false}).choices[0];
        assert.equal(finish, "stop");
        assert.equal(message.tool_calls, undefined);
        assert.equal(message.content, "<tool_call>f {\"a\":");
        // Cut by the token limit instead, it stays, with finish_reason length (as OpenAI gives it).
        const cut = play([{type: "call.start", index: 0, name: "f"}, {type: "call.delta", index: 0, delta: "{\"a\":"},
            {type: "call.end", index: 0, incomplete: true}], "incomplete").done;
        const kept = toChatCompletion(cut, {logprobs: false}).choices[0];
        assert.equal(kept.finish_reason, "length");
        assert.equal(kept.message.tool_calls![0]!.function.arguments, "{\"a\":");
    });

    it("the completion object gathers thoughts, text and calls into one message", () => {
        const {done} = play([
            {type: "thought", text: "hm"}, {type: "thought.end"}, {type: "call.start", index: 0, name: "f"},
            {type: "call.delta", index: 0, delta: "{}"}, {type: "call.end", index: 0}
        ]);
        const {message, finish_reason: finish} = toChatCompletion(done, {logprobs: false}).choices[0];
        assert.equal(finish, "tool_calls");
        assert.equal(message.content, null);
        assert.equal(message.reasoning_content, "hm");
        assert.equal(message.tool_calls![0]!.function.arguments, "{}");
    });
});
