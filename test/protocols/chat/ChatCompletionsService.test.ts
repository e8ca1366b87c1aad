import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {ChatCompletionChunk} from "../../../src/protocols/chat/chatWire.js";
import {ApiError} from "../../../src/protocol/errors.js";
import {ChatCompletionsService} from "../../../src/protocols/chat/ChatCompletionsService.js";
import {ResponsesService} from "../../../src/responses/ResponsesService.js";
import {ResponseStore} from "../../../src/store/ResponseStore.js";
import {ScriptedEngine, type Script} from "../../helpers/ScriptedEngine.js";

const serviceOn = (...scripts: Script[]) =>
    new ChatCompletionsService(new ResponsesService(new ScriptedEngine(...scripts), new ResponseStore()));
const body = (extra: object = {}) => ({model: "m", messages: [{role: "user", content: "hi"}], ...extra});

describe("ChatCompletionsService: a Chat Completions request on the Responses path, transport-free", () => {
    it("prepare → admit → complete: a chat.completion with the answer and the response it came from", async () => {
        const service = serviceOn({events: [{type: "text", text: "Hello"}]});
        const chat = service.prepare("owner", body());
        const {completion, response} = await service.complete(chat, await service.admit(chat));
        assert.equal(completion.object, "chat.completion");
        assert.equal(completion.choices[0]!.message.content, "Hello");
        assert.equal(completion.choices[0]!.finish_reason, "stop");
        assert.equal(response.status, "completed");
        assert.equal(chat.prepared.params.store, false, "never stored");
    });

    it("a stream's chunks go to its writer, from the role chunk to the finish reason", async () => {
        const service = serviceOn({events: [{type: "text", text: "Hel"}, {type: "text", text: "lo"}]});
        const chat = service.prepare("owner", body({stream: true}));
        const chunks: ChatCompletionChunk[] = [];
        const stream = service.stream(chat, (chunk) => chunks.push(chunk));
        const response = await service.runStream(await service.admit(chat, undefined, stream), stream);
        assert.equal(response.status, "completed");
        assert.equal(chunks[0]!.choices[0]!.delta.role, "assistant");
        assert.deepEqual(chunks.map((chunk) => chunk.choices[0]?.delta.content).filter((text) => text), ["Hel", "lo"]);
        assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, "stop");
    });

    it("a response whose output failed validation is the request's error, never a completion", async () => {
        const service = serviceOn({events: [{type: "text", text: "not json"}]});
        const chat = service.prepare("owner", body({response_format: {type: "json_schema", json_schema: {name: "n", strict: true,
            schema: {type: "object", properties: {n: {type: "integer"}}, required: ["n"], additionalProperties: false}}}}));
        await assert.rejects(service.complete(chat, await service.admit(chat)),
            (error: unknown) => error instanceof ApiError && error.code === "invalid_output");
    });

    it("a body Chat Completions refuses is refused at prepare, before any engine work", () => {
        const service = serviceOn();
        assert.throws(() => service.prepare("owner", {model: "m"}), ApiError);
    });
});
