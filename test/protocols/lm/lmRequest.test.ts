import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {ApiError} from "../../../src/protocol/errors.js";
import {LanguageModelChatService, type LmToolCall} from "../../../src/protocols/lm/LanguageModelChatService.js";
import {toCreateBody, type LmMessage} from "../../../src/protocols/lm/lmRequest.js";
import {ResponsesService} from "../../../src/responses/ResponsesService.js";
import {ResponseStore} from "../../../src/store/ResponseStore.js";
import {ScriptedEngine} from "../../helpers/ScriptedEngine.js";

const bytes = (text: string) => new TextEncoder().encode(text);

/** An agent-mode exchange as the editor sends it: a user turn, the model's call, the call's result in a user turn. */
const conversation: LmMessage[] = [
    {role: "system", parts: [{type: "text", text: "You are helpful."}]},
    {role: "user", parts: [{type: "text", text: "Weather "}, {type: "text", text: "in Paris?"}]},
    {role: "assistant", parts: [
        {type: "text", text: "Let me look."},
        {type: "toolCall", callId: "call_1", name: "get_weather", input: {city: "Paris"}}
    ]},
    {role: "user", parts: [
        {type: "toolResult", callId: "call_1", content: [
            {type: "text", text: "sunny, "},
            {type: "data", mimeType: "application/json", data: bytes("{\"c\":21}")},
            {type: "value", value: {node: 1}}
        ]},
        {type: "data", mimeType: "cache_control", data: bytes("ephemeral")},
        {type: "text", text: "Thanks."}
    ]}
];

describe("vscode.lm request → Responses create body", () => {
    it("maps messages in order: text parts joined into one message, calls and results as their own items", () => {
        const body = toCreateBody("stories260K", conversation);
        assert.deepEqual(body, {
            model: "stories260K",
            store: false,
            stream: true,
            input: [
                {type: "message", role: "system", content: [{type: "input_text", text: "You are helpful."}]},
                {type: "message", role: "user", content: [{type: "input_text", text: "Weather in Paris?"}]},
                {type: "message", role: "assistant", content: [{type: "output_text", text: "Let me look."}]},
                {type: "function_call", call_id: "call_1", name: "get_weather", arguments: "{\"city\":\"Paris\"}"},
                {type: "function_call_output", call_id: "call_1", output: "sunny, {\"c\":21}{\"node\":1}"},
                {type: "message", role: "user", content: [{type: "input_text", text: "Thanks."}]}
            ]
        }, "an editor's marker (cache_control) reads as nothing");
    });

    it("offers tools as functions; toolMode Required forces a call; no tools: no tool_choice", () => {
        const tools = [
            {
                name: "get_weather", description: "Weather of a city",
                inputSchema: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}
            },
            {name: "now", description: ""}
        ];
        const required = toCreateBody("m", conversation.slice(1, 2), {tools, toolMode: "required"});
        assert.deepEqual(required.tools, [
            {type: "function", name: "get_weather", description: "Weather of a city", parameters: tools[0]!.inputSchema, strict: false},
            {type: "function", name: "now", strict: false}
        ]);
        assert.equal(required.tool_choice, "required");
        assert.equal(toCreateBody("m", [], {tools, toolMode: "auto"}).tool_choice, "auto");
        assert.equal(toCreateBody("m", [], {tools}).tool_choice, "auto");
        const none = toCreateBody("m", [], {tools: [], toolMode: "required"});
        assert.equal("tools" in none || "tool_choice" in none, false);
    });

    it("maps the sampling modelOptions it knows (first spelling wins) and ignores the others", () => {
        const modelOptions = {temperature: 0, maxTokens: 64, max_tokens: 8, topP: 0.5, seed: 3, reasoning: "x", stop: ["a"]};
        const body = toCreateBody("m", [], {modelOptions});
        assert.deepEqual({temperature: body.temperature, max: body.max_output_tokens, top: body.top_p, seed: body.seed},
            {temperature: 0, max: 64, top: 0.5, seed: 3});
        assert.equal("reasoning" in body || "stop" in body, false);
    });

    it("refuses images by the part that holds them, in a message or a tool result", () => {
        const image = {type: "data" as const, mimeType: "image/png", data: new Uint8Array([137, 80])};
        assert.throws(() => toCreateBody("m", [{role: "user", parts: [{type: "text", text: "see"}, image]}]),
            (error: unknown) => error instanceof ApiError && error.param === "messages[0].content[1]"
                && /Image input is not supported/.test(error.message));
        assert.throws(() => toCreateBody("m", [{role: "user", parts: [{type: "toolResult", callId: "c", content: [image]}]}]),
            (error: unknown) => error instanceof ApiError && error.param === "messages[0].content[0].content[0]");
    });
});

describe("LanguageModelChatService on the scripted engine", () => {
    const collect = () => {
        const texts: string[] = [];
        const calls: LmToolCall[] = [];
        return {texts, calls, sink: {text: (delta: string) => texts.push(delta), toolCall: (call: LmToolCall) => calls.push(call)}};
    };

    it("renders the mapped turns through the domain's mapping and streams text deltas as they come", async () => {
        const engine = new ScriptedEngine({events: [{type: "text", text: "It is "}, {type: "text", text: "sunny."}]});
        const service = new LanguageModelChatService(new ResponsesService(engine, new ResponseStore()));
        const {texts, sink} = collect();
        const response = await service.respond("scripted", conversation, {}, sink);
        assert.deepEqual(texts, ["It is ", "sunny."]);
        assert.equal(response.status, "completed");
        const [request] = engine.requests;
        assert.deepEqual(request!.turns, [
            {role: "system", text: "You are helpful."},
            {role: "user", text: "Weather in Paris?"},
            {role: "model", parts: [
                {type: "text", text: "Let me look."},
                {type: "call", name: "get_weather", arguments: "{\"city\":\"Paris\"}", result: "sunny, {\"c\":21}{\"node\":1}"}
            ]},
            {role: "user", text: "Thanks."}
        ]);
    });

    it("returns a forced call with its parsed input, and offers the tools under toolMode Required", async () => {
        const engine = new ScriptedEngine({events: [
            {type: "call.start", index: 0, name: "get_weather"},
            {type: "call.delta", index: 0, delta: "{\"city\":"},
            {type: "call.delta", index: 0, delta: "\"Oslo\"}"},
            {type: "call.end", index: 0}
        ]});
        const service = new LanguageModelChatService(new ResponsesService(engine, new ResponseStore()));
        const {texts, calls, sink} = collect();
        const tools = [{name: "get_weather", inputSchema: {type: "object"}}];
        await service.respond("scripted", conversation.slice(1, 2), {tools, toolMode: "required"}, sink);
        assert.deepEqual(texts, []);
        assert.equal(calls.length, 1);
        assert.equal(calls[0]!.name, "get_weather");
        assert.deepEqual(calls[0]!.input, {city: "Oslo"});
        assert.match(calls[0]!.callId, /^call_/);
        assert.deepEqual(engine.requests[0]!.toolMode, {type: "required"});
    });

    it("refuses a model other than the loaded one, and counts tokens as the prompt renders", async () => {
        const engine = new ScriptedEngine();
        const service = new LanguageModelChatService(new ResponsesService(engine, new ResponseStore()));
        await assert.rejects(service.respond("other", conversation, {}, collect().sink),
            (error: unknown) => error instanceof ApiError && error.code === "model_not_found");
        assert.equal(await service.countTokens("scripted", "one two three"), 3);
        assert.equal(await service.countTokens("scripted", conversation[1]!), 3);
    });
});
