import assert from "node:assert/strict";
import http from "node:http";
import type {AddressInfo, Socket} from "node:net";
import {describe, it} from "node:test";
import {EngineError} from "../../../src/engine/EngineError.js";
import {maxErrorBodyBytes} from "../../../src/engine/upstream/postRequest.js";
import {maxSseEventChars, SseDataParser} from "../../../src/engine/upstream/sseData.js";
import {UpstreamEngine} from "../../../src/engine/upstream/UpstreamEngine.js";

/** Writes `piece` over and over, as fast as the peer reads, until the connection closes: a body that never ends. */
function endless(res: http.ServerResponse, piece: string): void {
    const write = () => {
        while (!res.destroyed && res.write(piece))
            ;
        if (!res.destroyed)
            res.once("drain", write);
    };
    write();
}

/** A loopback upstream whose every generation request is answered by `answer`; `sockets` are those requests' connections. */
async function upstream(answer: (res: http.ServerResponse) => void) {
    const sockets: Socket[] = [];
    const server = http.createServer((req, res) => {
        if (req.method === "GET") {
            res.setHeader("content-type", "application/json");
            res.end(req.url === "/v1/models" ? JSON.stringify({data: [{id: "scripted"}]}) : "{}");
            return;
        }
        sockets.push(req.socket);
        req.resume();
        req.on("end", () => answer(res));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const engine = new UpstreamEngine({urls: [`http://127.0.0.1:${(server.address() as AddressInfo).port}`], healthIntervalMs: 60_000});
    await engine.load("");
    return {
        engine,
        sockets,
        async close() {
            await engine.dispose();
            server.closeAllConnections();
            await new Promise((resolve) => server.close(resolve));
        }
    };
}

/** The generation's failure, or a failed assertion when it has not failed within `ms` (the read was not bounded). */
async function failure(promise: Promise<unknown>, ms = 10_000): Promise<EngineError> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`still reading after ${ms} ms: the read is not bounded`)), ms);
    });
    try {
        await Promise.race([promise.then(() => assert.fail("the generation succeeded")), timeout]);
        assert.fail("unreachable");
    } catch (error) {
        if (!(error instanceof EngineError))
            throw error;
        return error;
    } finally {
        clearTimeout(timer);
    }
}

async function allClosed(sockets: Socket[]): Promise<void> {
    assert.ok(sockets.length > 0, "the generation reached the upstream");
    for (const started = Date.now(); sockets.some((socket) => !socket.destroyed); await new Promise((resolve) => setTimeout(resolve, 10)))
        assert.ok(Date.now() - started < 5000, "the upstream connection was released");
}

describe("upstream reads are bounded", () => {
    it("an error body that never ends: the request fails with the upstream's status, the message says it was cut", async () => {
        const scripted = await upstream((res) => {
            res.writeHead(500, {"content-type": "text/plain"});
            endless(res, "upstream trouble ".repeat(4096));
        });
        try {
            const error = await failure(scripted.engine.generate({turns: [{role: "user", text: "x"}]}));
            assert.equal(error.kind, "upstream_error");
            assert.match(error.message, /answered 500: upstream trouble/);
            assert.match(error.message, new RegExp(`longer than ${maxErrorBodyBytes} bytes: the rest was not read`));
            assert.ok(error.message.length < 1000, "the message carries the body's start only");
            await allClosed(scripted.sockets);
        } finally {
            await scripted.close();
        }
    });

    it("a short error body is read whole, with no word of a cut", async () => {
        const scripted = await upstream((res) => {
            res.writeHead(400, {"content-type": "application/json"});
            res.end(JSON.stringify({error: {message: "bad sampler"}}));
        });
        try {
            const error = await failure(scripted.engine.generate({turns: [{role: "user", text: "x"}]}));
            assert.equal(error.kind, "upstream_rejected");
            assert.match(error.message, /answered 400: bad sampler$/);
        } finally {
            await scripted.close();
        }
    });

    it("an SSE line that never ends: the stream fails with a clear upstream error past the bound, its connection closed", async () => {
        const scripted = await upstream((res) => {
            res.writeHead(200, {"content-type": "text/event-stream"});
            res.write(`data: ${JSON.stringify({choices: [{index: 0, delta: {content: "hi"}, finish_reason: null}]})}\n\n`);
            res.write("data: ");
            endless(res, "x".repeat(64 * 1024));
        });
        try {
            const error = await failure(scripted.engine.generate({turns: [{role: "user", text: "x"}]}), 30_000);
            assert.equal(error.kind, "upstream_error");
            assert.match(error.message, new RegExp(`Server-Sent Event of more than ${maxSseEventChars} characters without ending it`));
            await allClosed(scripted.sockets);
        } finally {
            await scripted.close();
        }
    });
});

describe("SSE parser bound", () => {
    const encode = (text: string) => new TextEncoder().encode(text);

    it("throws once a line without its end passes the bound, read by read", () => {
        const parser = new SseDataParser("http://u", 100);
        assert.deepEqual(parser.push(encode(`data: ${"a".repeat(50)}`)), []);
        assert.throws(() => parser.push(encode("a".repeat(60))), (error: unknown) => error instanceof EngineError
            && error.kind === "upstream_error" && /The upstream http:\/\/u sent a Server-Sent Event of more than 100/.test(error.message));
    });

    it("counts an event's data lines until its blank line, and starts again after it", () => {
        const parser = new SseDataParser("u", 100);
        const [a, b] = ["a".repeat(40), "b".repeat(40)];
        assert.deepEqual(parser.push(encode(`data: ${a}\ndata: ${b}\n\n`)), [{data: `${a}\n${b}`}]);
        assert.deepEqual(parser.push(encode(`data: ${"c".repeat(40)}\n`)), []);
        assert.throws(() => parser.push(encode(`data: ${"d".repeat(40)}\ndata: ${"e".repeat(40)}\n`)), /more than 100 characters/);
    });

    it("joins a long line's pieces once its end arrives, CR LF split between reads", () => {
        const parser = new SseDataParser();
        const pieces = ["data: ", "x".repeat(1000), "y".repeat(1000), "\r"];
        assert.deepEqual(pieces.flatMap((piece) => parser.push(encode(piece))), []);
        assert.deepEqual(parser.push(encode("\n\r\n")), [{data: `${"x".repeat(1000)}${"y".repeat(1000)}`}]);
        assert.deepEqual(parser.end(), []);
    });
});
