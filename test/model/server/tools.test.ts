import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {assertValidResponse, assertValidStream} from "../../helpers/conformance.js";
import {models} from "../../helpers/paths.js";
import {type TestServer, readSse, startTestServer, useTestServer} from "../../helpers/testServer.js";

const weather = {
    type: "function" as const,
    name: "get_weather",
    description: "Get the current weather for a city",
    strict: true,
    parameters: {type: "object", properties: {city: {type: "string", maxLength: 12}}, required: ["city"], additionalProperties: false}
};
const add = {
    type: "function" as const,
    name: "add",
    description: "Add two numbers",
    strict: false,
    parameters: {type: "object", properties: {a: {type: "number"}, b: {type: "number"}}, required: ["a", "b"]}
};

/** Its enum keeps every call short and lets a forced call finish well within the output limit. */
const setVersion = {
    type: "function" as const,
    name: "set_version",
    description: "Sets a version",
    strict: true,
    parameters: {
        type: "object", properties: {version: {type: "string", enum: ["1.2.3", "4.5.6"]}}, required: ["version"],
        additionalProperties: false
    }
};

type Events = Awaited<ReturnType<typeof readSse>>;

async function stream(server: TestServer, body: Record<string, unknown>): Promise<Events> {
    const res = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", stream: true, ...body}});
    assert.equal(res.status, 200, await res.clone().text());
    const events = await readSse(res);
    assertValidStream(events);
    return events;
}

function calls(response: {output: Array<{type: string}>}) {
    return response.output.filter((item): item is any => item.type === "function_call");
}

/** Streamed argument deltas of each call item add up to its final `arguments`. */
function assertArgumentsStreamed(events: Events): void {
    const final = events.at(-1)!.response;
    for (const call of calls(final)) {
        const deltas = events.filter((event) => event.type === "response.function_call_arguments.delta" && event.item_id === call.id)
            .map((event) => event.delta).join("");
        assert.equal(deltas, call.arguments, "streamed deltas add up to the final arguments");
        if (call.status === "completed") {
            const done = events.find((event) => event.type === "response.function_call_arguments.done" && event.item_id === call.id);
            assert.equal(done?.arguments, call.arguments);
        }
    }
}

for (const [label, model] of [["ChatML", models.chatml], ["Qwen/Jinja", models.qwen]] as const) {
    describe(`function tools, forced by grammar (${label} model)`, () => {
        const server = useTestServer({model});

        it("tool_choice required forces a complete call (non-streaming)", async () => {
            const response = await server.client.responses.create({
                model: "m", input: "What is the weather in Paris?", tools: [weather, add], tool_choice: "required",
                parallel_tool_calls: false, temperature: 0
            });
            assertValidResponse(response);
            assert.equal(response.status, "completed");
            const [call, ...rest] = calls(response);
            assert.equal(rest.length, 0, "parallel_tool_calls false stops after the first call");
            assert.ok(["get_weather", "add"].includes(call.name));
            assert.equal(call.status, "completed");
            assert.match(call.call_id, /^call_/);
            assert.equal(typeof JSON.parse(call.arguments), "object");
            assert.ok(response.usage!.output_tokens > 0 && response.usage!.output_tokens < 100,
                "usage counts the tokens actually generated");
        });

        it("a named tool_choice forces that tool, streamed with argument deltas", async () => {
            const events = await stream(server, {
                input: "Weather?", tools: [weather, add], tool_choice: {type: "function", name: "get_weather"}, parallel_tool_calls: false,
                temperature: 0
            });
            const types = events.map((event) => event.type);
            assert.deepEqual(types.slice(0, 3), ["response.created", "response.in_progress", "response.output_item.added"]);
            assert.ok(types.includes("response.function_call_arguments.delta"));
            assert.ok(types.indexOf("response.function_call_arguments.done") < types.lastIndexOf("response.output_item.done"));
            const final = events.at(-1)!.response;
            assert.equal(final.status, "completed");
            const [call] = calls(final);
            assert.equal(call.name, "get_weather");
            const args = JSON.parse(call.arguments);
            assert.equal(typeof args.city, "string", "strict arguments match the schema");
            assert.deepEqual(Object.keys(args), ["city"]);
            assertArgumentsStreamed(events);
            const added = events.find((event) => event.type === "response.output_item.added")!;
            assert.equal(added.item.type, "function_call");
            assert.equal(added.item.status, "in_progress");
        });

        it("tool_choice none does not offer the tools; auto lets the model answer in text", async () => {
            for (const choice of ["none", "auto"] as const) {
                const response = await server.client.responses.create({
                    model: "m", input: "Tell me a story.", tools: [add], tool_choice: choice, max_output_tokens: 12
                });
                assertValidResponse(response);
                assert.equal(calls(response).length, 0);
                assert.equal(response.tool_choice, choice);
            }
        });

        it("a named tool_choice with the default parallel_tool_calls makes exactly one call of that tool, streamed and not", async () => {
            const body = {
                input: "Call the tool.", tools: [setVersion], tool_choice: {type: "function" as const, name: "set_version"},
                max_output_tokens: 200, temperature: 0
            };
            const response = await server.client.responses.create({model: "m", ...body});
            assertValidResponse(response);
            const events = await stream(server, body);
            assertArgumentsStreamed(events);
            for (const final of [response, events.at(-1)!.response]) {
                assert.equal(final.status, "completed");
                assert.equal(final.output.length, 1);
                const [call] = calls(final);
                assert.equal(call.name, "set_version");
                assert.equal(call.status, "completed");
                assert.ok(setVersion.parameters.properties.version.enum.includes(JSON.parse(call.arguments).version));
                assert.ok(final.usage.output_tokens < 200);
            }
        });

        it("required with parallel calls publishes every completed (validated) call; a cut strict call is incomplete without "
            + "arguments", async () => {
            const body = {
                input: "Call the tool.", tools: [setVersion], tool_choice: "required" as const, max_output_tokens: 120, temperature: 0
            };
            const response = await server.client.responses.create({model: "m", ...body});
            assertValidResponse(response);
            const events = await stream(server, body);
            assertArgumentsStreamed(events);
            for (const final of [response, events.at(-1)!.response]) {
                const made = calls(final);
                assert.ok(made.length > 0 && made.length === final.output.length, "never an empty output after generating tokens");
                const completed = made.filter((call) => call.status === "completed");
                for (const call of completed)
                    assert.ok(setVersion.parameters.properties.version.enum.includes(JSON.parse(call.arguments).version));
                if (final.status === "incomplete") {
                    // Only the last call can be the one the limit cut; its unvalidated arguments are withheld.
                    assert.equal(completed.length, made.length - 1);
                    assert.deepEqual([made.at(-1).status, made.at(-1).arguments], ["incomplete", ""]);
                    assert.equal(final.usage.output_tokens, 120);
                } else {
                    assert.equal(final.status, "completed");
                    assert.equal(completed.length, made.length);
                }
            }
            const done = events.filter((event) => event.type === "response.function_call_arguments.done");
            assert.equal(done.length, calls(events.at(-1)!.response).filter((call) => call.status === "completed").length);
            if (model === models.qwen) {
                // The Qwen template allows parallel calls and the tiny model keeps calling until the limit.
                assert.equal(response.status, "incomplete");
                assert.ok(calls(response).length > 2);
            }
        });

        it("a call cut by max_output_tokens is incomplete, with no arguments .done event", async () => {
            const events = await stream(server,
                {input: "Add", tools: [add], tool_choice: {type: "function", name: "add"}, max_output_tokens: 10, temperature: 0});
            const final = events.at(-1)!;
            assert.equal(final.type, "response.incomplete");
            assert.equal(final.response.incomplete_details.reason, "max_output_tokens");
            const cut = calls(final.response);
            assert.equal(cut.length, 1);
            assert.equal(cut[0].status, "incomplete");
            assert.ok(!events.some((event) => event.type === "response.function_call_arguments.done"));
            assertArgumentsStreamed(events);
        });
    });
}

describe("function call round trips (Qwen model)", () => {
    const server = useTestServer({model: models.qwen});

    const forced = {
        tools: [weather, add], tool_choice: {type: "function" as const, name: "add"}, parallel_tool_calls: false, temperature: 0
    };

    it("stateless: full history with the call and its output", async () => {
        const input: any[] = [{role: "user", content: "What is 2 + 3?"}];
        const first = await server.client.responses.create({model: "m", input, store: false, ...forced});
        const [call] = calls(first);
        input.push(...first.output, {type: "function_call_output", call_id: call.call_id, output: "5"});
        const second = await server.client.responses.create({
            model: "m", input, store: false, tools: [weather, add], max_output_tokens: 12
        });
        assertValidResponse(second);
        assert.equal(second.status === "completed" || second.status === "incomplete", true);
        assert.ok(second.usage!.input_tokens > first.usage!.input_tokens);
        assert.ok(second.usage!.input_tokens_details.cached_tokens > 0, "the resent history reuses the KV cache");
    });

    it("previous_response_id with only the function_call_output items (tools declared again)", async () => {
        const first = await server.client.responses.create({model: "m", input: "What is 2 + 3?", ...forced});
        const [call] = calls(first);
        const second = await server.client.responses.create({
            model: "m", previous_response_id: first.id, tools: [weather, add], max_output_tokens: 12,
            input: [{type: "function_call_output", call_id: call.call_id, output: "5"}]
        });
        assertValidResponse(second);
        assert.deepEqual(second.tools.map((tool: any) => tool.name), ["get_weather", "add"]);
        assert.ok(second.usage!.input_tokens_details.cached_tokens > 0);
        // Tools are not inherited: without them, none are echoed.
        const third = await server.client.responses.create({
            model: "m", previous_response_id: second.id, input: "Thanks", max_output_tokens: 4
        });
        assert.deepEqual(third.tools, []);
    });

    it("parallel calls (max_tool_calls 2) answered out of order", async () => {
        const first = await server.client.responses.create({
            model: "m", input: "Add twice", tools: [add], tool_choice: "required", parallel_tool_calls: true, max_tool_calls: 2,
            temperature: 0, store: false
        });
        assertValidResponse(first);
        const made = calls(first);
        assert.equal(made.length, 2);
        assert.notEqual(made[0].call_id, made[1].call_id);
        const input: any[] = [{role: "user", content: "Add twice"}, ...first.output,
            {type: "function_call_output", call_id: made[1].call_id, output: "7"},
            {type: "function_call_output", call_id: made[0].call_id, output: "3"}];
        const second = await server.client.responses.create({model: "m", input, tools: [add], max_output_tokens: 8, store: false});
        assertValidResponse(second);
    });

    it("a call without its output, or an output without its call, is a 400 before generation", async () => {
        const missingOutput = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: [
            {role: "user", content: "hi"}, {type: "function_call", call_id: "call_a", name: "add", arguments: "{}"}
        ]}});
        assert.equal(missingOutput.status, 400);
        assert.equal((await missingOutput.json()).error.code, "missing_tool_output");
        const missingCall = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: [
            {role: "user", content: "hi"}, {type: "function_call_output", call_id: "call_b", output: "1"}
        ]}});
        assert.equal(missingCall.status, 400);
        assert.equal((await missingCall.json()).error.code, "missing_tool_call");
    });

    it("a custom (freeform) tool round trip: custom_tool_call item, streamed input events, output in history", async () => {
        const applyPatch = {
            type: "custom", name: "apply_patch", description: "Edit files",
            format: {type: "grammar", syntax: "lark", definition: "start: /.+/"}
        };
        const events = await stream(server, {
            input: "Patch it", tools: [applyPatch], tool_choice: {type: "custom", name: "apply_patch"}, parallel_tool_calls: false,
            temperature: 0, max_output_tokens: 200
        });
        const final = events.at(-1)!.response;
        assert.equal(final.status, "completed");
        const call = final.output.find((item: any) => item.type === "custom_tool_call");
        assert.ok(call, "a custom_tool_call item");
        assert.equal(call.name, "apply_patch");
        assert.equal(typeof call.input, "string");
        const deltas = events.filter((event) => event.type === "response.custom_tool_call_input.delta").map((event) => event.delta)
            .join("");
        assert.equal(deltas, call.input);
        assert.equal(events.find((event) => event.type === "response.custom_tool_call_input.done")?.input, call.input);
        assert.ok(!events.some((event) => event.type.startsWith("response.function_call_arguments")));

        const next = await server.client.responses.create({model: "m", store: false, tools: [applyPatch as any], max_output_tokens: 8,
            input: [
                {role: "user", content: "Patch it"}, call, {type: "custom_tool_call_output", call_id: call.call_id, output: "Done!"}
            ]});
        assertValidResponse(next);
    });

    it("hosted tools are accepted, not offered, and logged once", async () => {
        const response = await server.client.responses.create({
            model: "m", input: "hi", max_output_tokens: 4,
            tools: [{type: "web_search"}, {type: "tool_search"} as any, add]
        });
        assertValidResponse(response);
        assert.deepEqual(response.tools.map((tool: any) => tool.name), ["add"]);
    });

    it("input_image and input_file parts are a 400 naming the missing vision support", async () => {
        for (const part of [{type: "input_image", image_url: "data:image/png;base64,AAAA"},
            {type: "input_file", file_data: "x", filename: "a.txt"}]) {
            const res = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: [{role: "user", content: [part]}]}});
            assert.equal(res.status, 400);
            const body = await res.json();
            assert.equal(body.error.code, "unsupported_content_type");
            assert.match(body.error.message, /vision/);
        }
        const inResult = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: [
            {role: "user", content: "hi"}, {type: "function_call", call_id: "c1", name: "add", arguments: "{}"},
            {type: "function_call_output", call_id: "c1", output: [{type: "input_image", image_url: "data:image/png;base64,AAAA"}]}
        ]}});
        assert.equal(inResult.status, 400);
    });

    it("sampling fields: seed, penalties, verbosity, service_tier accepted; other tiers refused by name", async () => {
        const response = await server.client.responses.create({
            model: "m", input: "hi", max_output_tokens: 4, seed: 7, presence_penalty: 0.5, frequency_penalty: 0.5,
            text: {verbosity: "low"}, service_tier: "default"
        } as any);
        assertValidResponse(response);
        assert.equal((response as any).presence_penalty, 0.5);
        for (const [body, param] of [[{service_tier: "flex"}, "service_tier"]] as const) {
            const res = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: "hi", ...body}});
            assert.equal(res.status, 400);
            assert.equal((await res.json()).error.param, param);
        }
    });
});

describe("--strict-tools", () => {
    it("rejects hosted tool types with 400", async () => {
        const server = await startTestServer({strictTools: true});
        try {
            const res = await server.fetch("/v1/responses",
                {method: "POST", json: {model: "m", input: "hi", tools: [{type: "web_search"}]}});
            assert.equal(res.status, 400);
            const body = await res.json();
            assert.equal(body.error.code, "unsupported_tool_type");
            assert.equal(body.error.param, "tools[0].type");
        } finally {
            await server.close();
        }
    });
});
