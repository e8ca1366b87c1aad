import assert from "node:assert/strict";
import http from "node:http";
import {after, before, describe, it} from "node:test";
import OpenAI, {AuthenticationError, NotFoundError} from "openai";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

/** Raw request, so the Host header can be set as a rebinding attacker's page would have it. */
function rawRequest(url: string,
    headers: Record<string, string>): Promise<{status: number, body: string, headers: http.IncomingHttpHeaders}> {
    return new Promise((resolve, reject) => {
        const request = http.request(url, {headers}, (res) => {
            let body = "";
            res.on("data", (chunk) => (body += chunk));
            res.on("end", () => resolve({status: res.statusCode!, body, headers: res.headers}));
        });
        request.on("error", reject);
        request.end();
    });
}

describe("security defaults: loopback bind, API key, Host and Origin checks, per-key isolation", () => {
    let server: TestServer;
    const otherKey = "sk-other-key";
    before(async () => {
        server = await startTestServer({apiKeys: ["sk-test-key", otherKey], allowedOrigins: ["http://allowed.example"]});
    });
    after(() => server.close());

    it("binds 127.0.0.1", () => {
        assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    });

    it("a missing and a wrong key get the same 401", async () => {
        const missing = await rawRequest(`${server.url}/models`, {});
        const wrong = await rawRequest(`${server.url}/models`, {authorization: "Bearer sk-wrong"});
        const wrongHeader = await rawRequest(`${server.url}/models`, {"x-api-key": "sk-wrong-and-much-longer-than-the-real-one"});
        for (const res of [missing, wrong, wrongHeader]) {
            assert.equal(res.status, 401);
            assert.equal(res.body, missing.body);
        }
        assert.equal(JSON.parse(missing.body).error.code, "invalid_api_key");
        const sdk = new OpenAI({baseURL: server.url, apiKey: "sk-wrong", maxRetries: 0});
        await assert.rejects(sdk.models.list(), AuthenticationError);
    });

    it("accepts Authorization: Bearer and x-api-key, which share access to stored objects", async () => {
        const created = await server.client.responses.create({model: "m", input: "hi", max_output_tokens: 2});
        const viaHeader = await rawRequest(`${server.url}/responses/${created.id}`, {"x-api-key": "sk-test-key"});
        assert.equal(viaHeader.status, 200);
        assert.equal(JSON.parse(viaHeader.body).id, created.id);
    });

    it("another key's responses are 404 on every endpoint", async () => {
        const created = await server.client.responses.create({model: "m", input: "hi", max_output_tokens: 2});
        const other = new OpenAI({baseURL: server.url, apiKey: otherKey, maxRetries: 0});
        await assert.rejects(other.responses.retrieve(created.id), NotFoundError);
        await assert.rejects(other.responses.inputItems.list(created.id), NotFoundError);
        await assert.rejects(other.responses.delete(created.id), NotFoundError);
        await assert.rejects(other.responses.create({model: "m", input: "x", previous_response_id: created.id}), NotFoundError);
        await assert.rejects(other.responses.inputTokens.count({model: "m", input: "x", previous_response_id: created.id}), NotFoundError);
        assert.ok(await server.client.responses.retrieve(created.id), "still there for its owner");
    });

    it("refuses a Host header that is not a loopback name (DNS rebinding) with 403", async () => {
        const auth = {authorization: "Bearer sk-test-key"};
        const evil = await rawRequest(`${server.url}/models`, {...auth, host: "evil.example:1234"});
        assert.equal(evil.status, 403);
        assert.equal(JSON.parse(evil.body).error.code, "invalid_host");
        for (const host of ["[::1].evil", "[::1]:80.evil", "127.0.0.1.evil.example", "localhost:99999"]) {
            const lookAlike = await rawRequest(`${server.url}/models`, {...auth, host});
            assert.equal(lookAlike.status, 403, host);
            assert.equal(JSON.parse(lookAlike.body).error.code, "invalid_host", host);
        }
        for (const host of ["localhost:1", "127.0.0.1", "[::1]:8080", "LOCALHOST"])
            assert.equal((await rawRequest(`${server.url}/models`, {...auth, host})).status, 200, host);
    });

    it("refuses browser origins unless configured; configured ones get CORS headers", async () => {
        const auth = {authorization: "Bearer sk-test-key"};
        const refused = await rawRequest(`${server.url}/models`, {...auth, origin: "http://evil.example"});
        assert.equal(refused.status, 403);
        assert.equal(refused.headers["access-control-allow-origin"], undefined);
        const allowed = await rawRequest(`${server.url}/models`, {...auth, origin: "http://allowed.example"});
        assert.equal(allowed.status, 200);
        assert.equal(allowed.headers["access-control-allow-origin"], "http://allowed.example");
        const noOrigin = await rawRequest(`${server.url}/models`, auth);
        assert.equal(noOrigin.headers["access-control-allow-origin"], undefined, "no CORS headers without an Origin");
    });

    it("GET /v1/models and the alias without /v1 list the loaded model", async () => {
        const models = await server.client.models.list();
        assert.deepEqual(models.data.map((model) => model.id), ["stories260K"]);
        const alias = await rawRequest(`${server.origin}/models`, {authorization: "Bearer sk-test-key"});
        assert.equal(JSON.parse(alias.body).data[0].id, "stories260K");
    });
});
