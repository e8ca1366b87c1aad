import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {gzipSync} from "node:zlib";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

type ErrorBody = {error: {message: string, type: string, param: string | null, code: string | null}};

/** Asserts OpenAI's error shape with the given status, and that no internal wording leaked. */
async function expectApiError(res: Response, status: number): Promise<ErrorBody["error"]> {
    const text = await res.text();
    assert.equal(res.status, status, text);
    const body = JSON.parse(text) as ErrorBody;
    assert.deepEqual(Object.keys(body.error).sort(), ["code", "message", "param", "type"]);
    assert.equal(typeof body.error.message, "string");
    assert.doesNotMatch(body.error.message, /Internal error|incorrect header check|Failed to decode param|\n\s+at /);
    return body.error;
}

/** Requests the parsers of Express, its router and body-parser refuse: each a clean 4xx in OpenAI's shape. */
describe("malformed paths and bodies get a 4xx in OpenAI's shape, never a 500", () => {
    let server: TestServer;
    let conversationId: string;
    before(async () => {
        server = await startTestServer();
        conversationId = (await server.client.conversations.create({})).id;
    });
    after(async () => {
        const response = await server.client.responses.create({model: "m", input: "still there?", max_output_tokens: 2});
        assert.ok(response.id);
        await server.close();
    });

    const badEscapes = ["%zz", "a%ff", "%c0%af", "%", "x%E0%A4%A"];
    const routes = (id: string): Array<[string, string]> => [
        ["GET", `/v1/responses/${id}`],
        ["DELETE", `/v1/responses/${id}`],
        ["GET", `/v1/responses/${id}?stream=true`],
        ["GET", `/v1/responses/${id}/input_items`],
        ["POST", `/v1/responses/${id}/cancel`],
        ["GET", `/v1/conversations/${id}`],
        ["POST", `/v1/conversations/${id}`],
        ["DELETE", `/v1/conversations/${id}`],
        ["GET", `/v1/conversations/${id}/items`],
        ["POST", `/v1/conversations/${id}/items`],
        ["GET", `/v1/conversations/${conversationId}/items/${id}`],
        ["DELETE", `/v1/conversations/${conversationId}/items/${id}`],
        ["GET", `/v1/models/${id}`],
        ["GET", `/responses/${id}`],
        ["GET", `/models/${id}`]
    ];

    it("a malformed percent-escape in any :id is 400 invalid_request_error on every route with an id", async () => {
        for (const escape of badEscapes) {
            for (const [method, path] of routes(escape)) {
                const res = await server.fetch(path, {method, ...(method === "POST" ? {json: {metadata: {a: "b"}}} : {})});
                const error = await expectApiError(res, 400);
                assert.equal(error.type, "invalid_request_error", `${method} ${path}`);
                assert.equal(error.code, "invalid_path", `${method} ${path}`);
                assert.match(error.message, /percent/);
            }
        }
    });

    /** POSTs `body` declared as `encoding`, whatever it really is. */
    const postEncoded = (path: string, encoding: string, body: BodyInit = JSON.stringify({model: "m", input: "hi"})) =>
        server.fetch(path, {method: "POST", headers: {"content-type": "application/json", "content-encoding": encoding}, body});

    it("Content-Encoding gzip, deflate or br over a body not so encoded is 400 invalid_body_encoding", async () => {
        for (const encoding of ["gzip", "deflate", "br"]) {
            const error = await expectApiError(await postEncoded("/v1/responses", encoding), 400);
            assert.equal(error.code, "invalid_body_encoding", encoding);
            assert.match(error.message, new RegExp(encoding));
        }
    });

    it("a truly gzipped body is accepted; an unsupported Content-Encoding is 415", async () => {
        const accepted = await postEncoded("/v1/responses/input_tokens", "gzip",
            new Blob([gzipSync(JSON.stringify({model: "m", input: "hi"}))]));
        assert.equal(accepted.status, 200, await accepted.clone().text());
        assert.ok(((await accepted.json()) as {input_tokens: number}).input_tokens > 0);
        for (const encoding of ["compress", "zstd", "gzip, gzip"]) {
            const error = await expectApiError(await postEncoded("/v1/responses", encoding), 415);
            assert.equal(error.code, "unsupported_media_type", encoding);
        }
    });

    it("a truncated gzip body is 400 invalid_body_encoding", async () => {
        const truncated = new Blob([gzipSync(JSON.stringify({model: "m", input: "hi"})).subarray(0, 12)]);
        assert.equal((await expectApiError(await postEncoded("/v1/responses", "gzip", truncated), 400)).code, "invalid_body_encoding");
    });
});
