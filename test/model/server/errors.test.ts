import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {BadRequestError, NotFoundError} from "openai";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

/** One test per error class: each is refused in OpenAI's shape before any generation, and the server keeps serving. */
describe("bad input gets a clear 4xx in OpenAI's error shape", () => {
    let server: TestServer;
    before(async () => {
        server = await startTestServer({bodyLimitBytes: 64 * 1024});
    });
    after(async () => {
        // Still serving after every refusal, and nothing stored was lost.
        const response = await server.client.responses.create({model: "m", input: "still there?", max_output_tokens: 2});
        assert.ok(response.id);
        await server.close();
    });

    async function expectError(body: unknown, status: number, match: {code?: string | null, param?: string | null, message?: RegExp},
        raw?: string) {
        const generatedBefore = server.host.engine.stats().sequencesBusy;
        const res = await server.fetch("/v1/responses", raw != null
            ? {method: "POST", body: raw, headers: {"content-type": "application/json"}}
            : {method: "POST", json: body});
        assert.equal(res.status, status);
        const payload = await res.json() as {error: {message: string, type: string, param: string | null, code: string | null}};
        assert.deepEqual(Object.keys(payload.error).sort(), ["code", "message", "param", "type"]);
        assert.equal(typeof payload.error.message, "string");
        if (match.code !== undefined)
            assert.equal(payload.error.code, match.code);
        if (match.param !== undefined)
            assert.equal(payload.error.param, match.param);
        if (match.message != null)
            assert.match(payload.error.message, match.message);
        assert.equal(server.host.engine.stats().sequencesBusy, generatedBefore, "no generation started");
        return payload.error;
    }

    it("malformed JSON → 400 invalid_json", async () => {
        const error = await expectError(undefined, 400, {code: "invalid_json"}, "{\"model\": \"m\", \"input\": ");
        assert.equal(error.type, "invalid_request_error");
    });

    it("a wrong type names the parameter", async () => {
        await expectError({model: "m", input: "x", temperature: "hot"}, 400, {param: "temperature", code: "invalid_type"});
        await expectError({model: "m", input: 42}, 400, {param: "input"});
        await expectError({model: "m", input: "x", max_output_tokens: 0}, 400, {param: "max_output_tokens"});
        await expectError({model: "m", input: "x", top_p: 3}, 400, {param: "top_p"});
    });

    it("an unknown parameter → 400 unknown_parameter", async () => {
        await expectError({model: "m", input: "x", frobnicate: true}, 400, {code: "unknown_parameter", param: "frobnicate"});
    });

    it("invalid input items name the item", async () => {
        await expectError({model: "m", input: [{content: "no role"}]}, 400, {param: "input[0].type"});
        await expectError({model: "m", input: [{role: "wizard", content: "x"}]}, 400, {param: "input[0].role"});
        await expectError({model: "m", input: [{type: "telepathy"}]}, 400, {param: "input[0].type"});
        await expectError({model: "m", input: [{role: "user", content: [{type: "input_image", image_url: "data:,"}]}]}, 400,
            {message: /vision/});
    });

    it("unsupported values → 400 naming the field", async () => {
        await expectError({model: "m", input: "x", truncation: "auto"}, 400, {param: "truncation", code: "unsupported_parameter"});
        await expectError({model: "m", input: "x", include: ["telemetry.everything"]}, 400, {param: "include"});
        await expectError({model: "m", input: "x", service_tier: "priority"}, 400, {param: "service_tier"});
        await expectError({model: "m", input: "x", prompt_cache_key: "k".repeat(300)}, 400, {param: "prompt_cache_key"});
    });

    it("an unknown previous_response_id → 404 previous_response_not_found (SDK: NotFoundError)", async () => {
        await expectError({model: "m", input: "x", previous_response_id: "resp_nope"}, 404,
            {code: "previous_response_not_found", param: "previous_response_id"});
        await assert.rejects(server.client.responses.create({model: "m", input: "x", previous_response_id: "resp_nope"}), NotFoundError);
    });

    it("an oversized body → 413 with the documented limit", async () => {
        await expectError({model: "m", input: "x".repeat(70 * 1024)}, 413, {code: "request_too_large", message: /65536/});
    });

    it("a body that is not an object → 400; the SDK raises BadRequestError", async () => {
        await expectError([1, 2], 400, {});
        await assert.rejects(server.client.responses.create({model: "m", input: "x", temperature: 9} as never), BadRequestError);
    });

    it("unknown routes → 404 in the same shape", async () => {
        const res = await server.fetch("/v1/nothing-here");
        assert.equal(res.status, 404);
        assert.equal(((await res.json()) as {error: {code: string}}).error.code, "unknown_route");
    });
});
