import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {formatRequestLine} from "../../../src/server/middleware/requestLog.js";

describe("request log line (shared by the CLI and the VS Code log channel)", () => {
    it("says method, path, status, tokens and time, and nothing else", () => {
        assert.equal(formatRequestLine({method: "POST", path: "/v1/responses", status: 200, ms: 153, tokens: {input: 12, output: 40}}),
            "POST /v1/responses 200 in=12 out=40 153ms");
        assert.equal(formatRequestLine({method: "GET", path: "/v1/models", status: 401, ms: 1}), "GET /v1/models 401 1ms");
    });
});
