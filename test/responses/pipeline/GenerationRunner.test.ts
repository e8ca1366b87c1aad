import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {EngineLease} from "../../../src/engine/types.js";
import {ApiError} from "../../../src/protocol/errors.js";
import type {StreamEvent} from "../../../src/protocol/wire.js";
import {GenerationAbort} from "../../../src/responses/abortReasons.js";
import {GenerationRunner, type GenerationStats, type RunnerOptions} from "../../../src/responses/pipeline/GenerationRunner.js";
import {ReasoningReplay} from "../../../src/responses/reasoning/ReasoningReplay.js";
import {ResponsesService} from "../../../src/responses/ResponsesService.js";
import {ConversationStore} from "../../../src/store/ConversationStore.js";
import {ResponseStore} from "../../../src/store/ResponseStore.js";
import {ScriptedEngine, type Script} from "../../helpers/ScriptedEngine.js";

const text = (value: string) => ({type: "text" as const, text: value});

/** A runner on a scripted engine, its request prepared and admitted the real way; what it stored, counted and released. */
async function setUp(body: Record<string, unknown>, scripts: Script[], options: RunnerOptions = {}) {
    const engine = new ScriptedEngine(...scripts);
    const store = new ResponseStore();
    const stats: GenerationStats[] = [];
    const aborted: string[] = [];
    const logged: string[] = [];
    const runner = new GenerationRunner(store, new ReasoningReplay(), {
        onGeneration: (entry) => stats.push(entry), onGenerationAborted: (kind) => aborted.push(kind), log: (line) => logged.push(line),
        ...options
    });
    const prepared = new ResponsesService(engine, store, options).prepare("owner", {model: "m", ...body});
    const acquired = await engine.acquire(prepared.turns, []);
    let released = 0;
    const lease: EngineLease = {...acquired, release: () => void released++};
    return {runner, prepared, lease, store, stats, aborted, logged, released: () => released};
}

describe("GenerationRunner", () => {
    it("continues the sequence that announce opened, without a second response.created", async () => {
        const {runner, prepared, lease} = await setUp({input: "Hi", stream: true}, [{events: [text("Hello")]}]);
        const events: StreamEvent[] = [];
        const announcedThrough = runner.announce(prepared, (event) => events.push(event));
        await runner.run({prepared, lease, announcedThrough}, {sink: (event) => events.push(event)});
        assert.equal(events.filter((event) => event.type === "response.created").length, 1, "announced once, not again by run");
        assert.deepEqual(events.map((event) => event.sequence_number), events.map((_event, index) => index));
        assert.equal(events.at(-1)!.type, "response.completed");
    });

    it("reports a stored response completed only once storage says it is written (durable before acknowledged)", async () => {
        const {runner, prepared, lease, store} = await setUp({input: "Hi", stream: true}, [{events: [text("Hello")]}]);
        let written!: () => void;
        store.written = () => new Promise<void>((resolve) => (written = resolve));
        const events: StreamEvent[] = [];
        let finished = false;
        const running = runner.run({prepared, lease}, {sink: (event) => events.push(event)}).then(() => (finished = true));
        while (events.every((event) => event.type !== "response.output_text.done"))
            await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setImmediate(resolve));
        assert.ok(store.get("owner", prepared.response.id) != null, "stored in memory at once");
        assert.equal(events.some((event) => event.type === "response.completed"), false, "not reported while the write is pending");
        assert.equal(finished, false);
        written();
        await running;
        assert.equal(events.at(-1)!.type, "response.completed");
        assert.deepEqual(events.map((event) => event.sequence_number), events.map((_event, index) => index),
            "numbered in order all the same");
    });

    it("stores the finished response with its history and timings, appends it to its conversation and counts it", async () => {
        const conversations = new ConversationStore();
        const conversation = conversations.create("owner", [], {});
        const {runner, prepared, lease, store, stats, released} = await setUp({input: "Hi", conversation: conversation.id},
            [{events: [text("Hello")]}], {conversations});
        const {response, timings} = await runner.run({prepared, lease});
        assert.equal(response.status, "completed");
        const stored = store.get("owner", response.id);
        assert.deepEqual(stored?.inputItems, prepared.history);
        assert.ok(stored?.timings != null && timings === stored.timings);
        assert.deepEqual(conversations.items("owner", conversation.id)!.map((item) => item.type), ["message", "message"],
            "its input and output");
        assert.deepEqual(stats.map((entry) => entry.status), ["completed"]);
        assert.equal(released(), 1);
    });

    it("fails the response on an engine error: published as response.failed, logged, neither stored nor counted", async () => {
        // No script left: the scripted engine throws, as an engine whose generation broke would.
        const {runner, prepared, lease, store, stats, logged, released} = await setUp({input: "Hi"}, []);
        const events: StreamEvent[] = [];
        const {response} = await runner.run({prepared, lease}, {sink: (event) => events.push(event)});
        assert.equal(response.status, "failed");
        assert.equal(response.error?.code, "server_error");
        assert.equal(events.at(-1)!.type, "response.failed");
        assert.equal(store.get("owner", response.id), undefined);
        assert.deepEqual(stats, []);
        assert.equal(logged.length, 1);
        assert.equal(released(), 1, "the lease is released on failure too");
    });

    it("rejects a generation the engine reports aborted (the client went away): 499, counted as aborted, not stored", async () => {
        const {runner, prepared, lease, store, stats, aborted, released} = await setUp({input: "Hi"},
            [{events: [text("Hel")], stopReason: "abort"}]);
        const controller = new AbortController();
        controller.abort(new GenerationAbort("client_disconnected", "gone"));
        await assert.rejects(runner.run({prepared, lease}, {signal: controller.signal}),
            (error: unknown) => error instanceof ApiError && error.status === 499);
        assert.deepEqual(aborted, ["client_disconnected"]);
        assert.equal(store.get("owner", prepared.response.id), undefined);
        assert.deepEqual(stats, []);
        assert.equal(released(), 1);
    });

    it("fails held structured output that does not validate, with its usage, publishing none of it", async () => {
        const format = {type: "json_object"};
        const {runner, prepared, lease, store} = await setUp({input: "JSON?", text: {format}}, [{events: [text("[1, 2]")]}]);
        const events: StreamEvent[] = [];
        const {response} = await runner.run({prepared, lease}, {sink: (event) => events.push(event)});
        assert.equal(response.status, "failed");
        assert.equal(response.error?.code, "invalid_output");
        assert.ok(response.usage != null && response.usage.output_tokens === 1);
        assert.deepEqual(response.output, []);
        assert.equal(events.some((event) => event.type === "response.output_text.delta"), false);
        assert.equal(store.get("owner", response.id), undefined);
    });
});
