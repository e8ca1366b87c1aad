import assert from "node:assert/strict";
import http from "node:http";
import net, {type AddressInfo} from "node:net";
import {describe, it} from "node:test";
import express from "express";
import {streamJobEvents} from "../../src/server/jobStream.js";
import {JobEventLog} from "../../src/responses/background/JobEventLog.js";
import {sseEvents, type SseEvent} from "../helpers/background.js";

/** Serves one job log over real HTTP, as the background routes do. */
async function serve(log: JobEventLog, writeTimeoutMs = 1000,
    keepAliveMs?: number): Promise<{url: string, streams: Promise<void>[], close: () => Promise<void>}> {
    const app = express();
    const streams: Promise<void>[] = [];
    app.get("/events", (req, res) => {
        streams.push(streamJobEvents(res, log, Number(req.query.after ?? -1), {writeTimeoutMs, keepAliveMs}));
    });
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
        streams,
        close: () => new Promise((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
        })
    };
}

describe("streamJobEvents", () => {
    it("replays after the cursor, follows live events and ends after the log closes", async () => {
        const log = new JobEventLog();
        for (let index = 0; index < 3; index++)
            log.append({type: "response.output_text.delta", delta: String(index)});
        const server = await serve(log);
        try {
            const events: SseEvent[] = [];
            const reading = (async () => {
                for await (const event of sseEvents(await fetch(`${server.url}?after=0`))) {
                    events.push(event);
                    if (events.length === 2) {
                        log.append({type: "response.output_text.delta", delta: "live"});
                        log.append({type: "response.completed"});
                        log.close();
                    }
                }
            })();
            await reading;
            assert.deepEqual(events.map((event) => event.sequence_number), [1, 2, 3, 4]);
            assert.equal(events.at(-1)!.type, "response.completed");
        } finally {
            await server.close();
        }
    });

    it("ends a reader that fell behind the buffer with a terminal error event instead of a gap", async () => {
        const log = new JobEventLog({maxEvents: 4});
        log.append({type: "response.created"});
        const server = await serve(log);
        try {
            const events: SseEvent[] = [];
            for await (const event of sseEvents(await fetch(server.url))) {
                events.push(event);
                if (events.length === 1)
                    // While the reader waits, more events arrive than the buffer keeps.
                    for (let index = 0; index < 10; index++)
                        log.append({type: "response.output_text.delta", delta: String(index)});
            }
            assert.equal(events.length, 2);
            assert.equal(events[1]!.type, "error");
            assert.equal(events[1]!.code, "stream_events_expired");
            assert.ok(events[1]!.sequence_number > events[0]!.sequence_number);
        } finally {
            await server.close();
        }
    });

    it("cuts a reader whose socket stays unwritable for the write timeout; the log is untouched", {timeout: 60_000}, async () => {
        // More than the loopback socket buffers hold (send buffer at most 4 MiB here, receive buffer not grown by a
        // reader that never reads), so writing the replay must wait for a drain that never comes.
        const event = {type: "response.output_text.delta", delta: "x".repeat(160 * 1024)};
        const log = new JobEventLog({maxEvents: 100, maxBytes: 64 * 1024 * 1024});
        for (let index = 0; index < 64; index++)
            log.append(event);
        log.close();
        const server = await serve(log, 300);
        try {
            const url = new URL(server.url);
            const socket = net.connect(Number(url.port), url.hostname);
            socket.pause();
            socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
            while (server.streams.length === 0)
                await new Promise((resolve) => setTimeout(resolve, 10));
            // The server gives up on its own: this resolves although the client has read nothing and is still connected.
            await server.streams[0];

            let received = "";
            socket.setEncoding("utf8");
            socket.on("data", (chunk: string) => {
                received += chunk;
            });
            socket.resume();
            await new Promise<void>((resolve) => socket.once("close", () => resolve()));
            const events = received.split("\n\n").filter((block) => block.includes("data: {") && block.endsWith("}"));
            assert.ok(events.length > 0 && events.length < 64,
                `the reader got part of the replay, then was cut (${events.length} of 64 events)`);
            assert.equal(log.size, 64, "cutting a reader changes nothing in the log");
        } finally {
            await server.close();
        }
    });
});
