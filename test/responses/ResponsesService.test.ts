import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {ApiError} from "../../src/protocol/errors.js";
import {ResponsesService} from "../../src/responses/ResponsesService.js";
import type {StreamEvent} from "../../src/protocol/wire.js";
import {ResponseStore} from "../../src/store/ResponseStore.js";
import {ScriptedEngine, type Script} from "../helpers/ScriptedEngine.js";
import {createResponse} from "../helpers/createResponse.js";

/** Fast tests of the Responses domain on a scripted engine (no model); the same behaviours run on the real engine in test/server. */
async function run(body: Record<string, unknown>, ...scripts: Script[]) {
    const engine = new ScriptedEngine(...scripts);
    const store = new ResponseStore();
    const service = new ResponsesService(engine, store);
    const events: StreamEvent[] = [];
    const prepared = service.prepare("owner", {model: "m", ...body});
    const {response} = await service.run(await service.admit(prepared), {sink: (event) => events.push(event)});
    return {response, events, engine, store, service};
}

const text = (value: string) => ({type: "text" as const, text: value});

describe("ResponsesService on a scripted engine", () => {
    it("builds a message from text events, with the stream's events in order and one sequence", async () => {
        const {response, events} = await run({input: "Hi"}, {events: [text("Hello"), text(", world")]});
        assert.equal(response.status, "completed");
        assert.equal(response.output.length, 1);
        assert.deepEqual(response.output[0]!.type === "message"
            && response.output[0].content.map((part) => part.type === "output_text" ? part.text : ""), ["Hello, world"]);
        assert.deepEqual(events.map((event) => event.type), [
            "response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
            "response.output_text.delta", "response.output_text.delta", "response.output_text.done", "response.content_part.done",
            "response.output_item.done", "response.completed"
        ]);
        assert.deepEqual(events.map((event) => event.sequence_number), events.map((_event, index) => index));
    });

    it("turns call events into a function_call item with streamed arguments", async () => {
        const tools = [{type: "function", name: "get_weather", parameters: {type: "object", properties: {city: {type: "string"}}}}];
        const {response, events} = await run({input: "Weather?", tools}, {events: [
            {type: "call.start", index: 0, name: "get_weather"},
            {type: "call.delta", index: 0, delta: "{\"city\":"},
            {type: "call.delta", index: 0, delta: "\"Paris\"}"},
            {type: "call.end", index: 0}
        ]});
        const call = response.output.find((item) => item.type === "function_call");
        assert.ok(call != null && call.type === "function_call");
        assert.equal(call.name, "get_weather");
        assert.equal(call.arguments, "{\"city\":\"Paris\"}");
        assert.equal(events.filter((event) => event.type === "response.function_call_arguments.delta").length, 2);
    });

    it("holds structured output until it validates, and fails a response whose JSON breaks the schema", async () => {
        const format = {
            type: "json_schema", name: "answer",
            schema: {type: "object", properties: {n: {type: "integer"}}, required: ["n"], additionalProperties: false}, strict: true
        };
        const good = await run({input: "n?", text: {format}}, {events: [text("{\"n\":"), text("3}")]});
        assert.equal(good.response.status, "completed");
        const bad = await run({input: "n?", text: {format}}, {events: [text("{\"n\":\"three\"}")]});
        assert.equal(bad.response.status, "failed");
        assert.equal(bad.events.some((event) => event.type === "response.output_text.delta"), false, "nothing invalid was published");
    });

    it("marks a length stop incomplete with reason max_output_tokens", async () => {
        const {response} = await run({input: "Go", max_output_tokens: 2}, {events: [text("a"), text("b")], stopReason: "length"});
        assert.equal(response.status, "incomplete");
        assert.deepEqual(response.incomplete_details, {reason: "max_output_tokens"});
    });

    it("stores a response and continues it with previous_response_id, sending the earlier turns to the engine", async () => {
        const engine = new ScriptedEngine({events: [text("First answer")]}, {events: [text("Second answer")]});
        const service = new ResponsesService(engine, new ResponseStore());
        const first = await createResponse(service, "owner", {model: "m", input: "First question"});
        await createResponse(service, "owner", {model: "m", input: "Second question", previous_response_id: first.id});
        const turns = engine.requests[1]!.turns;
        assert.deepEqual(turns.map((turn) => turn.role), ["user", "model", "user"]);
        assert.throws(() => service.prepare("another owner", {model: "m", input: "x", previous_response_id: first.id}),
            (error: unknown) => error instanceof ApiError && error.status === 404, "another key cannot continue it");
    });
});
