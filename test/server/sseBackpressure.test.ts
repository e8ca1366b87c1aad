import assert from "node:assert/strict";
import type {AddressInfo} from "node:net";
import net from "node:net";
import {after, before, describe, it} from "node:test";
import express from "express";
import {SseStream} from "../../src/server/sse.js";

/** What the route did with one stream: events written, and whether its connection was cut before it wrote them all. */
type Outcome = {written: number, cut: boolean, ended: Promise<void>};

const eventBytes = 10_000;
const payload = "x".repeat(eventBytes);

/**
 * A real HTTP server whose one route writes `count` large delta events through an SseStream with a 1 s write
 * timeout, as fast as the socket lets Node buffer them (one per millisecond), and a raw client that reads as told.
 * Loopback's kernel buffers take a few megabytes before Node's own buffer fills, so the streams here are larger.
 */
describe("SseStream: a reader that stops reading is cut; a slow one gets everything", () => {
    let server: ReturnType<ReturnType<typeof express>["listen"]>;
    let port = 0;
    const outcomes: Outcome[] = [];

    before(async () => {
        const app = express();
        app.get("/events/:count", (req, res) => {
            const count = Number(req.params.count);
            const stream = new SseStream(res, {writeTimeoutMs: 1000, minWriteIntervalMs: 0});
            let ended = () => undefined as void;
            const outcome: Outcome = {written: 0, cut: false, ended: new Promise((resolve) => (ended = resolve))};
            outcomes.push(outcome);
            const timer = setInterval(() => {
                if (stream.isClosed) {
                    outcome.cut = outcome.written < count;
                    clearInterval(timer);
                    ended();
                    return;
                }
                if (outcome.written === count) {
                    clearInterval(timer);
                    stream.end();
                    ended();
                    return;
                }
                stream.send({type: "response.output_text.delta", sequence_number: outcome.written++, delta: payload} as never);
            }, 1);
        });
        server = app.listen(0, "127.0.0.1");
        await new Promise((resolve) => server.once("listening", resolve));
        port = (server.address() as AddressInfo).port;
    });
    after(() => new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
    }));

    /**
     * Opens `/events/count` and reads for a moment every `readEveryMs` (null: never; a paused socket notices no close, so
     * that client gives up once the route has stopped). Resolves when the connection is closed.
     */
    function open(count: number, readEveryMs: number | null): Promise<{received: number, closedAfterMs: number}> {
        return new Promise((resolve) => {
            const started = performance.now();
            let received = 0;
            const socket = net.connect(port, "127.0.0.1", () => {
                const opened = outcomes.length;
                const waitForRoute = readEveryMs != null ? undefined : setInterval(() => {
                    if (outcomes.length === opened)
                        return;
                    clearInterval(waitForRoute);
                    void outcomes.at(-1)!.ended.then(() => socket.destroy());
                }, 5);
                socket.write(`GET /events/${count} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
                socket.pause();
            });
            socket.on("data", (chunk: Buffer) => (received += chunk.length));
            const reader = readEveryMs == null ? undefined : setInterval(() => {
                socket.resume();
                setTimeout(() => socket.pause(), 10);
            }, readEveryMs);
            socket.on("error", () => undefined);
            socket.on("close", () => {
                clearInterval(reader);
                resolve({received, closedAfterMs: performance.now() - started});
            });
        });
    }

    it("a client that never reads is cut a second after the socket filled, and the writer sees the stream closed", async () => {
        const count = 4000;
        const {closedAfterMs} = await open(count, null);
        const outcome = outcomes.at(-1)!;
        assert.ok(outcome.cut, "the route stopped writing before its last event");
        assert.ok(outcome.written < count, `${outcome.written} of ${count} events written`);
        assert.ok(closedAfterMs < 10_000, `closed after ${closedAfterMs.toFixed(0)} ms`);
    });

    it("a slow reader that takes bytes every 50 ms receives every event", async () => {
        const count = 800;
        const {received} = await open(count, 50);
        const outcome = outcomes.at(-1)!;
        assert.equal(outcome.written, count);
        assert.equal(outcome.cut, false);
        assert.ok(received > count * eventBytes, `received ${received} bytes`);
    });
});
