import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

/**
 * Integer fields have real bounds: JSON's 1e309 parses to Infinity and 1e29 to a float that passes an "integer" check
 * without a maximum. Bodies are sent as raw text so those literals reach the server as a client wrote them.
 */
describe("integer fields are bounded: 1e309, 1e29 and friends get 400 naming the field", () => {
    let server: TestServer;
    let responseId: string;
    before(async () => {
        server = await startTestServer();
        responseId = (await server.client.responses.create({model: "m", input: "hi", max_output_tokens: 2})).id;
    });
    after(async () => {
        assert.ok((await server.client.responses.create({model: "m", input: "still there?", max_output_tokens: 2})).id);
        await server.close();
    });

    async function expect400(path: string, raw: string | undefined, param: string) {
        const res = await server.fetch(path, raw == null ? {} : {method: "POST", body: raw, headers: {"content-type": "application/json"}});
        const text = await res.text();
        assert.equal(res.status, 400, `${path} ${raw}: ${text}`);
        const error = (JSON.parse(text) as {error: {param: string | null, type: string}}).error;
        assert.equal(error.type, "invalid_request_error");
        assert.equal(error.param, param, `${path} ${raw}`);
    }

    const huge = ["1e309", "-1e309", "1e29", "9007199254740993", "1e9"];

    it("max_output_tokens, max_tool_calls and top_logprobs on create, on input_tokens and on compact", async () => {
        for (const value of huge) {
            for (const path of ["/v1/responses", "/v1/responses/input_tokens"]) {
                await expect400(path, `{"model": "m", "input": "hi", "max_output_tokens": ${value}}`, "max_output_tokens");
                await expect400(path, `{"model": "m", "input": "hi", "max_tool_calls": ${value}}`, "max_tool_calls");
                await expect400(path, `{"model": "m", "input": "hi", "top_logprobs": ${value}}`, "top_logprobs");
            }
            await expect400("/v1/responses/compact", `{"model": "m", "input": "hi", "max_output_tokens": ${value}}`, "max_output_tokens");
            await expect400("/v1/responses/compact", `{"model": "m", "input": "hi", "keep_tokens": ${value}}`, "keep_tokens");
        }
    });

    it("seed is a 64-bit integer at most; compact_threshold is bounded", async () => {
        for (const value of ["1e309", "-1e309", "1e29", "-1e29"])
            await expect400("/v1/responses", `{"model": "m", "input": "hi", "seed": ${value}}`, "seed");
        for (const value of ["1e309", "1e29", "0"])
            await expect400("/v1/responses",
                `{"model": "m", "input": "hi", "context_management": [{"type": "compaction", "compact_threshold": ${value}}]}`,
                "context_management[0].compact_threshold");
    });

    it("large but sane values are accepted", async () => {
        const response = await server.client.responses.create({
            model: "m", input: "hi", max_output_tokens: 3, max_tool_calls: 1000, seed: 2 ** 62, top_logprobs: 20
        } as never) as {id: string};
        assert.ok(response.id);
        const big = await server.fetch("/v1/responses/input_tokens",
            {method: "POST", json: {model: "m", input: "hi", max_output_tokens: 100_000_000, seed: -(2 ** 62)}});
        assert.equal(big.status, 200, await big.clone().text());
    });

    it("count keywords of a json_schema format or a strict tool schema: integers from 0 to 1000", async () => {
        const format = (keyword: string, value: string) => {
            const property = keyword.endsWith("Items") ? `{"type": "array", "items": {"type": "string"}, "${keyword}": ${value}}`
                : keyword.endsWith("Properties")
                ? `{"type": "object", "additionalProperties": false, "properties": {}, "required": [], "${keyword}": ${value}}`
                    : `{"type": "string", "${keyword}": ${value}}`;
            return `{"type": "object", "additionalProperties": false, "required": ["a"], "properties": {"a": ${property}}}`;
        };
        for (const keyword of ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"]) {
            for (const value of ["1e309", "1e29", "5000", "-1", "2.5"]) {
                await expect400("/v1/responses",
                    `{"model": "m", "input": "hi", "text": {"format": {"type": "json_schema", "name": "x", "strict": true, `
                        + `"schema": ${format(keyword, value)}}}}`, "text.format.schema");
                await expect400("/v1/responses",
                    `{"model": "m", "input": "hi", "tools": [{"type": "function", "name": "f", "strict": true, `
                        + `"parameters": ${format(keyword, value)}}]}`, "tools[0].parameters");
            }
        }
        const accepted = await server.fetch("/v1/responses", {
            method: "POST", headers: {"content-type": "application/json"},
            body: `{"model": "m", "input": "hi", "max_output_tokens": 4, "text": {"format": {"type": "json_schema", "name": "x", "strict": `
                + `true, "schema": ${format("maxItems", "1000")}}}}`
        });
        assert.equal(((await accepted.json()) as {error: unknown}).error, null, "a count at the limit builds a working grammar");
    });

    it("pagination limit on input_items and conversation items", async () => {
        const conversation = (await server.client.conversations.create({})).id;
        for (const value of ["1e309", "1e29", "Infinity", "101", "0", "2.5", "0x10"]) {
            await expect400(`/v1/responses/${responseId}/input_items?limit=${value}`, undefined, "limit");
            await expect400(`/v1/conversations/${conversation}/items?limit=${value}`, undefined, "limit");
        }
    });
});
