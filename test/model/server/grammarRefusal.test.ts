import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

/**
 * Issue 41 item 4: a tool or output schema llama.cpp's grammar compiler refuses was found only once the model began
 * the call, after the prompt was evaluated: a 500 with the client's grammar in the log. Now it is a 400 at admission,
 * on every protocol, naming the tool, and the server goes on serving.
 */
describe("schemas the grammar compiler refuses: 400 before evaluation (real server, stories260K)", () => {
    let server: TestServer;
    const logged: string[] = [];
    before(async () => (server = await startTestServer({log: (line: string) => logged.push(line)})));
    after(() => server.close());

    const longText = {type: "object", properties: {text: {type: "string", minLength: 3000}}, required: ["text"]};
    // Under the repetition limit itself, but past what llama.cpp expands (rules × repetitions): only compiling finds it.
    const manyRows = {type: "object", properties: {rows: {type: "array", maxItems: 1999, items: {type: "string"}}}, required: ["rows"]};

    const post = async (path: string, json: unknown) => {
        const response = await server.fetch(path, {method: "POST", json, headers: {"anthropic-version": "2023-06-01"}});
        return {status: response.status, body: await response.json() as any};
    };

    /** Generations the server ran, from /metrics: a refusal at admission runs none. */
    const generations = async () => [...(await (await server.fetch("/metrics")).text()).matchAll(/generations_total\{[^}]*\} (\d+)/g)]
        .reduce((sum, match) => sum + Number(match[1]), 0);

    for (const [label, schema] of [["minLength 3000", longText], ["1,999 strings", manyRows]] as const) {
        it(`a tool asking for ${label}: 400 invalid_schema naming the tool on Responses, Chat Completions and Messages`, async () => {
            const generationsBefore = await generations();
            const responses = await post("/v1/responses", {model: "m", input: "hi", max_output_tokens: 4,
                tools: [{type: "function", name: "ok_tool", parameters: {type: "object"}},
                    {type: "function", name: "write_note", parameters: schema}]});
            assert.equal(responses.status, 400, JSON.stringify(responses.body));
            assert.equal(responses.body.error.code, "invalid_schema");
            assert.equal(responses.body.error.param, "tools");
            assert.match(responses.body.error.message, /write_note/);

            const chat = await post("/v1/chat/completions", {model: "m", max_tokens: 4, messages: [{role: "user", content: "hi"}],
                tools: [{type: "function", function: {name: "write_note", parameters: schema}}]});
            assert.equal(chat.status, 400, JSON.stringify(chat.body));
            assert.equal(chat.body.error.code, "invalid_schema");

            const messages = await post("/v1/messages", {model: "m", max_tokens: 4, messages: [{role: "user", content: "hi"}],
                tools: [{name: "write_note", input_schema: schema}]});
            assert.equal(messages.status, 400, JSON.stringify(messages.body));
            assert.equal(messages.body.type, "error");
            assert.equal(messages.body.error.type, "invalid_request_error");
            assert.match(messages.body.error.message, /write_note/);
            // Nothing was generated, and the host's log holds no part of the client's schema.
            assert.equal(await generations(), generationsBefore);
            assert.ok(!logged.some((line) => /minLength|maxItems|"rows"/.test(line)), logged.join("\n"));
        });
    }

    it("the server goes on serving, and a tool that compiles is answered", async () => {
        const response = await post("/v1/responses", {model: "m", input: "hi", max_output_tokens: 4,
            tools: [{type: "function", name: "write_note",
                parameters: {type: "object", properties: {text: {type: "string", minLength: 3}}}}]});
        assert.equal(response.status, 200, JSON.stringify(response.body));
        assert.equal(response.body.status === "completed" || response.body.status === "incomplete", true);
        assert.ok(await generations() > 0, "the metrics count generations (so the unchanged count above means something)");
    });
});
