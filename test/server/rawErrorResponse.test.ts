import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {ApiError, modelNotLoaded, serverOverloaded} from "../../src/protocol/errors.js";
import {rawErrorResponse} from "../../src/server/rawErrorResponse.js";

describe("rawErrorResponse (answers written straight to a socket)", () => {
    const parse = (raw: string) => {
        const [head, body] = raw.split("\r\n\r\n");
        const [statusLine, ...lines] = head!.split("\r\n");
        return {
            statusLine, headers: new Map(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(),
                line.slice(line.indexOf(":") + 1).trim()])), body: body!
        };
    };

    it("is a whole HTTP/1.1 response with OpenAI's error body, its length, and Connection: close", () => {
        const {statusLine, headers, body} = parse(
            rawErrorResponse(new ApiError(431, "Too large: ü", {code: "request_header_fields_too_large"}))
        );
        assert.equal(statusLine, "HTTP/1.1 431 Request Header Fields Too Large");
        assert.equal(headers.get("connection"), "close");
        assert.equal(Number(headers.get("content-length")), Buffer.byteLength(body), "bytes, not characters");
        assert.deepEqual(JSON.parse(body),
            {error: {message: "Too large: ü", type: "invalid_request_error", param: null, code: "request_header_fields_too_large"}});
        assert.equal(headers.has("retry-after"), false);
    });

    it("carries Retry-After on a 429 or 503 (a refused WebSocket handshake during shutdown too)", () => {
        assert.equal(parse(rawErrorResponse(serverOverloaded())).headers.get("retry-after"), "1");
        assert.equal(parse(rawErrorResponse(modelNotLoaded())).headers.get("retry-after"), "5");
        assert.equal(parse(rawErrorResponse(new ApiError(503, "The server is shutting down.",
            {code: "server_shutting_down"}))).headers.get("retry-after"), "1");
        assert.equal(parse(rawErrorResponse(new ApiError(429, "Slow down."))).headers.get("retry-after"), "1");
    });
});
