import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {ApiError} from "../../../src/protocol/errors.js";
import type {MessagesStreamEvent} from "../../../src/protocols/messages/messagesWire.js";
import {MessagesService} from "../../../src/protocols/messages/MessagesService.js";
import {ResponsesService} from "../../../src/responses/ResponsesService.js";
import {ResponseStore} from "../../../src/store/ResponseStore.js";
import {ScriptedEngine, type Script} from "../../helpers/ScriptedEngine.js";

const serviceOn = (...scripts: Script[]) =>
    new MessagesService(new ResponsesService(new ScriptedEngine(...scripts), new ResponseStore()));
const body = (extra: object = {}) => ({model: "m", max_tokens: 64, messages: [{role: "user", content: "hi"}], ...extra});

describe("MessagesService: an Anthropic Messages request on the Responses path, transport-free", () => {
    it("answers in one body: the message, its stop reason and the usage the request log counts", async () => {
        const service = serviceOn({events: [{type: "text", text: "Hello"}]});
        const message = service.prepare("owner", body());
        assert.equal(service.streams(message), false);
        const {body: answer, usage} = await service.answer(message, await service.admit(message));
        assert.equal(answer.type, "message");
        assert.deepEqual(answer.content, [{type: "text", text: "Hello"}]);
        assert.equal(answer.stop_reason, "end_turn");
        assert.equal(answer.stop_sequence, null);
        assert.deepEqual(usage, {input: answer.usage.input_tokens + answer.usage.cache_read_input_tokens, output: 1});
        assert.equal(message.prepared.params.store, false, "never stored");
    });

    it("reports the stop sequence the run's outcome names, in one body and at the end of a stream", async () => {
        const script: Script = {events: [{type: "text", text: "one, two"}], stopSequence: "three"};
        const oneBody = serviceOn(script);
        const message = oneBody.prepare("owner", body({stop_sequences: ["three"]}));
        const {body: answer} = await oneBody.answer(message, await oneBody.admit(message));
        assert.equal(answer.stop_reason, "stop_sequence");
        assert.equal(answer.stop_sequence, "three");

        const streamed = serviceOn(script);
        const streaming = streamed.prepare("owner", body({stop_sequences: ["three"], stream: true}));
        assert.equal(streamed.streams(streaming), true);
        const events: MessagesStreamEvent[] = [];
        await streamed.run(streaming, await streamed.admit(streaming), {sink: (event) => events.push(event)});
        assert.equal(events[0]!.type, "message_start");
        assert.deepEqual(events.slice(-2).map((event) => event.type), ["message_delta", "message_stop"], "the message ends last");
        const delta = events.at(-2)!;
        assert.ok(delta.type === "message_delta" && delta.delta.stop_reason === "stop_sequence" && delta.delta.stop_sequence === "three");
    });

    it("a call the model left unfinished in a completed turn is no tool_use in one body; the stop reason is end_turn", async () => {
        const service = serviceOn({events: [
            {type: "call.start", index: 0, name: "f"}, {type: "call.delta", index: 0, delta: "{\"a\":"},
            {type: "call.end", index: 0, incomplete: true}, {type: "text", text: "<tool_call>f"}
        ]});
        const message = service.prepare("owner", body());
        const {body: answer} = await service.answer(message, await service.admit(message));
        assert.deepEqual(answer.content, [{type: "text", text: "<tool_call>f"}]);
        assert.equal(answer.stop_reason, "end_turn");
    });

    it("writes a failure after the stream opened as Anthropic's error event (a full queue is overloaded, 529)", () => {
        const service = serviceOn();
        assert.deepEqual(service.streamError(new ApiError(400, "bad", {code: "invalid_value"})),
            {type: "error", error: {type: "invalid_request_error", message: "bad"}});
        assert.equal(service.streamError(new ApiError(503, "full", {code: "server_overloaded"})).error.type, "overloaded_error");
    });

    it("count_tokens counts what generation renders: Claude Code's attribution line is in neither", async () => {
        const service = serviceOn({events: [{type: "text", text: "Hi"}]});
        const line = "x-anthropic-billing-header: cc_version=2.1.328.b7f; cc_entrypoint=cli; cc_is_subagent=true; cch=0f3a9;";
        const system = "You are a careful coding agent.";
        const without = (await service.countTokens("owner", {...body(), system})).input_tokens;
        for (const sent of [`${line}\n${system}`, [{type: "text", text: line}, {type: "text", text: system}]]) {
            assert.equal((await service.countTokens("owner", {...body(), system: sent})).input_tokens, without, JSON.stringify(sent));
            const message = service.prepare("owner", body({system: sent}));
            const {body: answer} = await service.answer(message, await service.admit(message));
            assert.equal(answer.usage.input_tokens + answer.usage.cache_read_input_tokens, without);
        }
    });
});
