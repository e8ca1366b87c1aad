import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {SocketClient} from "../../helpers/socketClient.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

/** JSON text nested `levels` deep, built as text: the test never recurses on it either. */
const nestedSchema = (levels: number) =>
    `${'{"type": "object", "properties": {"a": '.repeat(levels)}{"type": "string"}${"}}".repeat(levels)}`;
const nestedObject = (levels: number) => `${'{"a": '.repeat(levels)}1${"}".repeat(levels)}`;
const nestedArray = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
const strictSchema = (levels: number) =>
    `${'{"type": "object", "additionalProperties": false, "required": ["a"], "properties": {"a": '.repeat(levels)}{"type": `
        + `"string"}${"}}".repeat(levels)}`;

/**
 * JSON.parse copes with any nesting, but whatever walks the parsed value afterwards (schema checks, JSON.stringify,
 * ajv, the grammar builder, the store's byte count) recursed without a bound: ~6,000 levels overflowed the stack (500).
 */
describe("deeply nested JSON is refused with 400 naming the parameter, never a stack overflow", () => {
    let server: TestServer;
    before(async () => {
        server = await startTestServer();
    });
    after(async () => {
        assert.ok((await server.client.responses.create({model: "m", input: "still there?", max_output_tokens: 2})).id);
        await server.close();
    });

    async function expectTooDeep(path: string, raw: string, param: string) {
        const res = await server.fetch(path, {method: "POST", body: raw, headers: {"content-type": "application/json"}});
        const text = await res.text();
        assert.equal(res.status, 400, `${path}: ${text.slice(0, 300)}`);
        const error = (JSON.parse(text) as {error: {message: string, param: string | null, code: string | null, type: string}}).error;
        assert.equal(error.type, "invalid_request_error");
        assert.equal(error.code, "nesting_too_deep", text);
        assert.equal(error.param, param);
        assert.match(error.message, /nest/);
    }

    for (const levels of [6_000, 50_000]) {
        it(`${levels} levels in a function tool's parameters, strict or not, on create and input_tokens`, async () => {
            for (const path of ["/v1/responses", "/v1/responses/input_tokens"]) {
                await expectTooDeep(path,
                    `{"model": "m", "input": "hi", "tools": [{"type": "function", "name": "f", "parameters": ${nestedSchema(levels)}}]}`,
                    "tools[0].parameters");
                await expectTooDeep(path,
                    `{"model": "m", "input": "hi", "tools": [{"type": "function", "name": "f", "strict": true, `
                        + `"parameters": ${strictSchema(levels)}}]}`, "tools[0].parameters");
            }
        });

        it(`${levels} levels in text.format.schema, metadata, input items, tool_choice`, async () => {
            await expectTooDeep("/v1/responses",
                `{"model": "m", "input": "hi", "text": {"format": {"type": "json_schema", "name": "x", "strict": true, `
                    + `"schema": ${strictSchema(levels)}}}}`, "text.format.schema");
            await expectTooDeep("/v1/responses", `{"model": "m", "input": "hi", "metadata": {"k": ${nestedObject(levels)}}}`,
                "metadata.k.a");
            await expectTooDeep("/v1/responses",
                `{"model": "m", "input": [{"role": "user", "content": [{"type": "input_text", "text": "x", `
                    + `"extra": ${nestedObject(levels)}}]}]}`, "input[0].content");
            await expectTooDeep("/v1/responses", `{"model": "m", "input": ${nestedArray(levels)}}`, "input[0][0]");
            await expectTooDeep("/v1/responses",
                `{"model": "m", "input": "hi", "tool_choice": {"type": "function", "name": ${nestedObject(levels)}}}`,
                "tool_choice.name.a");
        });

        it(`${levels} levels in conversation items and a compaction's input`, async () => {
            await expectTooDeep("/v1/conversations", `{"items": [{"type": "message", "role": "user", "content": ${nestedArray(levels)}}]}`,
                "items[0].content");
            await expectTooDeep("/v1/responses/compact",
                `{"model": "m", "input": [{"type": "message", "role": "user", "content": ${nestedArray(levels)}}]}`, "input[0].content");
        });
    }

    it("over WebSocket: an error event with the same status, code and param; the connection keeps serving", async () => {
        const socket = await SocketClient.open(`${server.url.replace(/^http/, "ws")}/responses`,
            {authorization: `Bearer ${server.apiKey}`});
        try {
            socket.send(
                `{"type": "response.create", "model": "m", "input": "hi", "tools": [{"type": "function", "name": "f", `
                    + `"parameters": ${nestedSchema(6_000)}}]}`
            );
            const [event] = await socket.readTurn();
            assert.equal(event!.type, "error");
            assert.equal(event!.status, 400);
            assert.equal(event!.error.code, "nesting_too_deep");
            assert.equal(event!.error.param, "tools[0].parameters");
            const next = await socket.turn({model: "m", input: "hi", max_output_tokens: 2});
            assert.equal(next.at(-1)!.type, "response.incomplete");
        } finally {
            socket.ws.close();
        }
    });

    it("one deep item first: the body is refused there, never parsed whole (a 16 MB body of [] behind it, audit 4 item 3)", async () => {
        // Before: the deep item switched the 100,000-container cap off, the whole body went to JSON.parse (2.1 s, +330 MB).
        const body = `{"model": "m", "input": [{"role": "user", "content": "hi"}], "metadata": ${nestedArray(130)}, "tools": [`
            + `${"[],".repeat(Math.floor((15 * 2 ** 20) / 3))}[]]}`;
        const started = performance.now();
        await expectTooDeep("/v1/responses", body, "metadata[0][0]");
        const elapsed = performance.now() - started;
        const list = performance.now();
        assert.equal((await server.fetch("/v1/models")).status, 200);
        assert.ok(performance.now() - list < 300, `GET /v1/models took ${Math.round(performance.now() - list)} ms after it`);
        // The request's own cost is reading 15 MB off the socket, not parsing it (before: 2.1 s).
        assert.ok(elapsed < 1500, `refused after ${Math.round(elapsed)} ms`);
    });

    it("schemas as deep as the schema rules allow still work, and one level more is schema_too_deep", async () => {
        const accepted = await server.fetch("/v1/responses/input_tokens", {
            method: "POST", headers: {"content-type": "application/json"},
            body: `{"model": "m", "input": "hi", "text": {"format": {"type": "json_schema", "name": "x", "strict": true, `
                + `"schema": ${strictSchema(23)}}}}`
        });
        assert.equal(accepted.status, 200, await accepted.clone().text());
        const refused = await server.fetch("/v1/responses/input_tokens", {
            method: "POST", headers: {"content-type": "application/json"},
            body: `{"model": "m", "input": "hi", "text": {"format": {"type": "json_schema", "name": "x", "strict": true, `
                + `"schema": ${strictSchema(24)}}}}`
        });
        assert.equal(refused.status, 400);
        assert.equal(((await refused.json()) as {error: {code: string}}).error.code, "schema_too_deep");
    });
});
