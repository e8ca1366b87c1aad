import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {describe, it} from "node:test";
import {ApiError} from "../../src/protocol/errors.js";
import {ResponsesService} from "../../src/responses/ResponsesService.js";
import {itemsToTurns} from "../../src/responses/transcript.js";
import type {Item, StreamEvent} from "../../src/protocol/wire.js";
import {ResponseStore} from "../../src/store/ResponseStore.js";
import {capturesDir} from "../helpers/paths.js";
import {ScriptedEngine, type Script} from "../helpers/ScriptedEngine.js";

/**
 * Codex's tools on a scripted engine (no model): `namespace` tools offered as `<namespace>__<name>` functions whose
 * calls carry `namespace`, a client-executed `tool_search` whose outputs load deferred tools, and `phase` kept on
 * stored messages. The same round trip runs on the real engine in test/model/server/codexTools.test.ts.
 */
async function run(body: Record<string, unknown>, ...scripts: Script[]) {
    const engine = new ScriptedEngine(...scripts);
    const store = new ResponseStore();
    const service = new ResponsesService(engine, store, {strictTools: body.strictTools === true});
    delete body.strictTools;
    const events: StreamEvent[] = [];
    const prepared = service.prepare("owner", {model: "m", ...body});
    const {response} = await service.run(await service.admit(prepared), {sink: (event) => events.push(event)});
    return {response, events, engine, store, prepared};
}

const call = (name: string, args: string): Script => ({events: [
    {type: "call.start", index: 0, name},
    {type: "call.delta", index: 0, delta: args},
    {type: "call.end", index: 0}
]});
const agents = {
    type: "namespace", name: "multi_agent_v1", description: "Sub-agents.",
    tools: [
        {
            type: "function", name: "close_agent", description: "Close an agent.",
            parameters: {type: "object", properties: {target: {type: "string"}}, required: ["target"]}
        },
        {type: "function", name: "wait_agent", parameters: {type: "object", properties: {}}}
    ]
};
const search = {
    type: "tool_search", execution: "client", description: "Finds tools.",
    parameters: {type: "object", properties: {query: {type: "string"}}, required: ["query"]}
};
const lookup = {
    type: "function", name: "lookup", description: "Looks up.", defer_loading: true, parameters: {type: "object", properties: {}}
};
const user = {role: "user", content: "hi"};

describe("namespace tools", () => {
    it("are offered as <namespace>__<name> functions and echoed as the client sent them", async () => {
        const {response, engine} = await run({input: "hi", tools: [agents, {type: "web_search"}]}, {events: [{type: "text", text: "ok"}]});
        assert.deepEqual(engine.requests[0]!.tools!.map((tool) => tool.name),
            ["multi_agent_v1__close_agent", "multi_agent_v1__wait_agent"]);
        assert.equal(engine.requests[0]!.tools![1]!.description, "Sub-agents.", "a function without a description shows its namespace's");
        assert.equal(response.tools.length, 1);
        const echoed = response.tools[0]!;
        assert.ok(echoed.type === "namespace");
        assert.deepEqual(echoed.tools.map((tool) => tool.name), ["close_agent", "wait_agent"]);
    });

    it("come back as function_call items carrying namespace, in the stream too", async () => {
        const {response, events} = await run({input: "hi", tools: [agents]}, call("multi_agent_v1__close_agent", "{\"target\":\"a1\"}"));
        const item = response.output[0]!;
        assert.ok(item.type === "function_call");
        assert.equal(item.name, "close_agent");
        assert.equal(item.namespace, "multi_agent_v1");
        const done = events.find((event) => event.type === "response.output_item.done");
        assert.deepEqual(done?.type === "response.output_item.done" && done.item, item);
    });

    it("a forced call names the namespace in tool_choice, echoed as sent", async () => {
        const choice = {type: "function", namespace: "multi_agent_v1", name: "close_agent"};
        const {response, engine} = await run({input: "hi", tools: [agents], tool_choice: choice},
            call("multi_agent_v1__close_agent", "{\"target\":\"x\"}"));
        assert.deepEqual(engine.requests[0]!.toolMode, {type: "required", names: ["multi_agent_v1__close_agent"]});
        assert.deepEqual(response.tool_choice, {type: "function", name: "close_agent", namespace: "multi_agent_v1"});
        await assert.rejects(run({input: "hi", tools: [agents], tool_choice: {type: "function", namespace: "other", name: "close_agent"}}),
            ApiError);
    });

    it("a replayed call with namespace renders as the function the model saw", () => {
        const items: Item[] = [
            {type: "message", id: "m", status: "completed", role: "user", content: [{type: "input_text", text: "hi"}]},
            {
                type: "function_call", id: "fc", call_id: "c1", name: "close_agent", namespace: "multi_agent_v1", arguments: "{}",
                status: "completed"
            },
            {type: "function_call_output", id: "o", call_id: "c1", output: "closed", status: "completed"}
        ];
        assert.deepEqual(itemsToTurns(items)[1],
            {role: "model", parts: [{type: "call", name: "multi_agent_v1__close_agent", arguments: "{}", result: "closed"}]});
    });

    it("the replayed call keeps its namespace in the stored input items", async () => {
        const replayed = {type: "function_call", call_id: "c1", name: "close_agent", namespace: "multi_agent_v1", arguments: "{}"};
        const {prepared} = await run({input: [user, replayed, {type: "function_call_output", call_id: "c1", output: "ok"}],
            tools: [agents]}, {events: []});
        assert.equal((prepared.input[1] as {namespace?: string}).namespace, "multi_agent_v1");
    });

    it("the fallback-model capture offers multi_agent_v1's functions and echoes the namespace", async () => {
        const body = JSON.parse(fs.readFileSync(path.join(capturesDir, "codex-request-fallback-model.json"), "utf8"));
        const {response, engine} = await run({...body, stream: false}, {events: [{type: "text", text: "ok"}]});
        const offered = engine.requests[0]!.tools!.map((tool) => tool.name);
        assert.ok(offered.includes("multi_agent_v1__spawn_agent"), offered.join(", "));
        assert.ok(response.tools.some((tool) => tool.type === "namespace" && tool.name === "multi_agent_v1"));
    });
});

describe("client-executed tool_search", () => {
    it("is offered as a function, deferred tools are left out, and its call is a tool_search_call item", async () => {
        const {response, engine, events} = await run({input: "hi", tools: [search, lookup]}, call("tool_search", "{\"query\":\"look\"}"));
        assert.deepEqual(engine.requests[0]!.tools!.map((tool) => tool.name), ["tool_search"]);
        assert.deepEqual(response.output[0], {
            type: "tool_search_call", id: response.output[0]!.id, call_id: (response.output[0] as {call_id: string}).call_id,
            execution: "client", arguments: {query: "look"}, status: "completed"
        });
        assert.ok(!events.some((event) => event.type === "response.function_call_arguments.delta"));
        assert.deepEqual(response.tools.map((tool) => tool.type), ["tool_search", "function"]);
        assert.equal((response.tools[1] as {defer_loading?: boolean}).defer_loading, true);
    });

    it("offers the tools a tool_search_output loaded on the next turn, and renders the search as a call", async () => {
        const loaded = {
            type: "namespace", name: "mcp__docs", description: "Docs server.",
            tools: [{type: "function", name: "fetch", parameters: {type: "object", properties: {}}}]
        };
        const input = [
            user,
            {type: "tool_search_call", call_id: "s1", execution: "client", arguments: {query: "docs"}, status: "completed"},
            {type: "tool_search_output", call_id: "s1", execution: "client", tools: [lookup, loaded], status: "completed"}
        ];
        const {engine, response} = await run({input, tools: [search, lookup]}, call("mcp__docs__fetch", "{}"));
        const request = engine.requests[0]!;
        assert.deepEqual(request.tools!.map((tool) => tool.name), ["tool_search", "lookup", "mcp__docs__fetch"]);
        assert.deepEqual(request.turns.at(-1), {role: "model", parts: [
            {type: "call", name: "tool_search", arguments: "{\"query\":\"docs\"}", result: "Loaded tools: lookup, mcp__docs__fetch"}
        ]});
        const item = response.output[0]!;
        assert.ok(item.type === "function_call" && item.namespace === "mcp__docs" && item.name === "fetch");
        assert.deepEqual(response.tools.map((tool) => tool.type), ["tool_search", "function"], "loaded tools are not echoed");
    });

    it("a search call without its output is refused before generation", async () => {
        const input = [user, {type: "tool_search_call", call_id: "s1", execution: "client", arguments: {}}];
        await assert.rejects(run({input, tools: [search]}), (error: ApiError) => error.code === "missing_tool_output");
    });

    it("a server-executed tool_search stays a hosted tool: ignored, refused under --strict-tools", async () => {
        const {response, engine} = await run({input: "hi", tools: [{type: "tool_search"}, {type: "image_generation"}]},
            {events: [{type: "text", text: "ok"}]});
        assert.deepEqual(response.tools, []);
        assert.equal(engine.requests[0]!.tools?.length ?? 0, 0);
        await assert.rejects(run({input: "hi", strictTools: true, tools: [{type: "web_search"}]}),
            (error: ApiError) => error.code === "unsupported_tool_type");
        const clientSearch = await run({input: "hi", strictTools: true, tools: [search, agents]}, {events: [{type: "text", text: "ok"}]});
        assert.equal(clientSearch.response.tools.length, 2, "client-executed tools are not hosted ones");
    });
});

describe("phase", () => {
    it("survives on stored input items and is not rendered", async () => {
        const input = [user, {role: "assistant", content: "Working on it", phase: "commentary"}, {role: "user", content: "go on"}];
        const {prepared, engine} = await run({input}, {events: [{type: "text", text: "ok"}]});
        assert.equal((prepared.input[1] as {phase?: string}).phase, "commentary");
        assert.deepEqual(engine.requests[0]!.turns[1], {role: "model", parts: [{type: "text", text: "Working on it"}]});
        await assert.rejects(run({input: [{role: "assistant", content: "x", phase: "draft"}]}), ApiError);
    });
});
