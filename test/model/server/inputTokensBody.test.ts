import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

describe("POST /v1/responses/input_tokens with a body it cannot read (real server)", () => {
    let server: TestServer;
    before(async () => {
        server = await startTestServer();
    });
    after(() => server?.close());

    it("refuses a body that is not a JSON object, as POST /v1/responses does, instead of counting an empty request", async () => {
        for (const [contentType, body] of [["text/plain", "{\"model\":\"m\",\"input\":\"hi\"}"], ["application/json", "[1, 2]"],
            ["application/json", "\"hi\""]]) {
            for (const path of ["/v1/responses/input_tokens", "/v1/responses"]) {
                const response = await server.fetch(path, {method: "POST", body, headers: {"content-type": contentType}});
                const json = await response.json() as {error: {code: string}};
                assert.equal(response.status, 400, `${path} ${contentType} ${body}`);
                // A bare JSON string is refused by the JSON parser itself (strict mode), before the route.
                assert.ok(["invalid_request_body", "invalid_json"].includes(json.error.code), json.error.code);
            }
        }
    });
});
