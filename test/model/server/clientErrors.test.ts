import assert from "node:assert/strict";
import net from "node:net";
import {after, before, describe, it} from "node:test";
import express from "express";
import {HttpServer} from "../../../src/server/HttpServer.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

type RawAnswer = {status: number, headers: Record<string, string>, body: string};

/** Sends bytes as they are over a TCP socket and reads what comes back until the server closes (or `waitMs`). */
function sendRaw(port: number, bytes: string | Buffer, waitMs = 5000): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
        const socket = net.connect(port, "127.0.0.1");
        const chunks: Buffer[] = [];
        const timer = setTimeout(() => socket.destroy(), waitMs);
        socket.on("data", (chunk) => chunks.push(chunk));
        socket.on("error", () => undefined);
        socket.on("close", () => {
            clearTimeout(timer);
            const text = Buffer.concat(chunks).toString("utf8");
            const [head, ...rest] = text.split("\r\n\r\n");
            const [statusLine, ...headerLines] = (head ?? "").split("\r\n");
            const match = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine ?? "");
            if (match == null) {
                reject(new Error(`no HTTP answer: ${JSON.stringify(text)}`));
                return;
            }
            const headers = Object.fromEntries(headerLines.map((line) => {
                const colon = line.indexOf(":");
                return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
            }));
            resolve({status: Number(match[1]), headers, body: rest.join("\r\n\r\n")});
        });
        socket.write(bytes);
    });
}

function assertOpenAiError(answer: RawAnswer, status: number): {message: string, type: string, param: string | null, code: string | null} {
    assert.equal(answer.status, status, JSON.stringify(answer));
    assert.match(answer.headers["content-type"] ?? "", /^application\/json/);
    assert.equal(Number(answer.headers["content-length"]), Buffer.byteLength(answer.body));
    const body = JSON.parse(answer.body) as {error: {message: string, type: string, param: string | null, code: string | null}};
    assert.deepEqual(Object.keys(body.error).sort(), ["code", "message", "param", "type"]);
    assert.equal(body.error.type, "invalid_request_error");
    assert.ok(body.error.message.length > 10);
    return body.error;
}

/** What Node's HTTP parser refuses before the app sees a request still gets OpenAI's error shape. */
describe("requests Node's HTTP parser refuses get OpenAI-shaped errors", () => {
    let server: TestServer;
    let port: number;
    const auth = "Authorization: Bearer sk-test-key\r\n";
    before(async () => {
        server = await startTestServer();
        port = Number(new URL(server.origin).port);
    });
    after(async () => {
        assert.equal((await server.client.models.list()).data.length, 1, "still serving");
        await server.close();
    });

    it("a raw space or control character in the URL → 400; a raw '<' reaches the app, which answers in the same shape", async () => {
        for (const target of ["/v1/mod els", "/v1/models\x7f", "/v1/models\x01"]) {
            const error = assertOpenAiError(await sendRaw(port, `GET ${target} HTTP/1.1\r\nHost: localhost\r\n${auth}\r\n`), 400);
            assert.equal(error.code, "invalid_http_request", JSON.stringify(target));
        }
        const angle = await sendRaw(port, `GET /v1/<script> HTTP/1.1\r\nHost: localhost\r\n${auth}Connection: close\r\n\r\n`);
        assert.equal(JSON.parse(angle.body).error.code, "unknown_route");
        const angleId = await sendRaw(port, `GET /v1/responses/<x>%zz HTTP/1.1\r\nHost: localhost\r\n${auth}Connection: close\r\n\r\n`);
        assert.equal(angleId.status, 400);
        assert.equal(JSON.parse(angleId.body).error.code, "invalid_path");
    });

    it("no Host header on HTTP/1.1 → 400 naming the Host header", async () => {
        const error = assertOpenAiError(await sendRaw(port, `GET /v1/models HTTP/1.1\r\n${auth}Connection: close\r\n\r\n`), 400);
        assert.equal(error.code, "missing_host");
        assert.equal(error.param, null);
    });

    it("a bad Content-Length, Transfer-Encoding with Content-Length, a bad chunk size, an invalid header name → 400", async () => {
        const post = (headers: string, body: string) =>
            `POST /v1/responses HTTP/1.1\r\nHost: localhost\r\n${auth}Content-Type: application/json\r\n${headers}\r\n${body}`;
        const cases: Array<[string, string]> = [
            ["bad content-length", post("Content-Length: 12abc\r\n", "{}")],
            ["two content-lengths", post("Content-Length: 2\r\nContent-Length: 3\r\n", "{}")],
            ["te and cl", post("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", "2\r\n{}\r\n0\r\n\r\n")],
            ["bad chunk size", post("Transfer-Encoding: chunked\r\n", "zz\r\n{}\r\n0\r\n\r\n")],
            ["invalid header name", `GET /v1/models HTTP/1.1\r\nHost: localhost\r\n${auth}Bad Header: 1\r\n\r\n`],
            ["header name with @", `GET /v1/models HTTP/1.1\r\nHost: localhost\r\n${auth}x@y: 1\r\n\r\n`],
            ["not HTTP at all", "HELLO\r\n\r\n"]
        ];
        for (const [name, bytes] of cases) {
            const error = assertOpenAiError(await sendRaw(port, bytes), 400);
            assert.equal(error.code, "invalid_http_request", name);
        }
    });

    it("a URL or headers over 16 KB → 431", async () => {
        const longUrl = `GET /v1/models?q=${"a".repeat(17 * 1024)} HTTP/1.1\r\nHost: localhost\r\n${auth}\r\n`;
        assert.equal(assertOpenAiError(await sendRaw(port, longUrl), 431).code, "request_header_fields_too_large");
        const longHeader = `GET /v1/models HTTP/1.1\r\nHost: localhost\r\n${auth}X-Filler: ${"b".repeat(17 * 1024)}\r\n\r\n`;
        assert.equal(assertOpenAiError(await sendRaw(port, longHeader), 431).code, "request_header_fields_too_large");
    });
});

describe("a request that never completes its headers → 408 in OpenAI's shape", () => {
    it("answers 408 after the headers timeout and closes the socket", async () => {
        const app = express();
        app.get("/", (_req, res) => res.json({ok: true}));
        const http = new HttpServer(app, undefined, {headersTimeoutMs: 300, connectionsCheckingIntervalMs: 100});
        const {port} = await http.listen("127.0.0.1", 0);
        try {
            const started = performance.now();
            const answer = await sendRaw(port, "GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ", 10_000);
            assert.equal(assertOpenAiError(answer, 408).code, "request_timeout");
            assert.ok(performance.now() - started < 5000);
        } finally {
            await http.close();
        }
    });
});
