import assert from "node:assert/strict";
import http from "node:http";
import type {AddressInfo} from "node:net";
import {describe, it} from "node:test";
import express from "express";
import {streamJobEvents} from "../../src/server/jobStream.js";
import {JobEventLog} from "../../src/store/JobEventLog.js";
import {sseEvents, type SseEvent} from "../helpers/background.js";

/** Serves one job log over real HTTP, as the background routes do. */
async function serve(log: JobEventLog): Promise<{url: string, close: () => Promise<void>}> {
    const app = express();
    app.get("/events", (req, res) => {
        void streamJobEvents(res, log, Number(req.query.after ?? -1), 1000);
    });
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
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
});
