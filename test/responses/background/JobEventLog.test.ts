import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {JobEventLog} from "../../../src/responses/background/JobEventLog.js";

const event = (index: number) => ({type: "response.output_text.delta", delta: `d${index}`});

describe("JobEventLog", () => {
    it("numbers events in order and reads strictly after a cursor", () => {
        const log = new JobEventLog();
        for (let index = 0; index < 5; index++)
            assert.equal(log.append(event(index)).sequence_number, index);
        const read = log.read(2);
        assert.equal(read.kind, "events");
        assert.deepEqual(read.kind === "events" && read.events.map((entry) => entry.sequence_number), [3, 4]);
        assert.equal(read.kind === "events" && read.done, false);
        const all = log.read(-1);
        assert.equal(all.kind === "events" && all.events.length, 5);
    });

    it("reports a future cursor and a cursor older than the buffer instead of skipping", () => {
        const log = new JobEventLog({maxEvents: 3});
        for (let index = 0; index < 6; index++)
            log.append(event(index));
        assert.equal(log.size, 3);
        assert.equal(log.firstRetained, 3);
        assert.deepEqual(log.read(6), {kind: "future", lastPublished: 5});
        assert.deepEqual(log.read(1), {kind: "gone", firstRetained: 3});
        assert.deepEqual(log.read(-1), {kind: "gone", firstRetained: 3});
        const fromTwo = log.read(2);
        assert.deepEqual(fromTwo.kind === "events" && fromTwo.events.map((entry) => entry.sequence_number), [3, 4, 5]);
    });

    it("drops oldest events beyond the byte budget but always keeps the newest", () => {
        const log = new JobEventLog({maxBytes: 200});
        log.append({type: "x", data: "a".repeat(150)});
        log.append({type: "x", data: "b".repeat(150)});
        assert.equal(log.size, 1);
        assert.equal(log.firstRetained, 1);
        log.append({type: "x", data: "c".repeat(500)});
        assert.equal(log.size, 1, "an oversized newest event is kept alone");
        assert.ok(log.bytes > 200);
    });

    it("wakes waiters on new events and on close; a closed log reads done and refuses appends", async () => {
        const log = new JobEventLog();
        log.append(event(0));
        let woke = false;
        const waiting = log.waitForMore(0).then(() => {
            woke = true;
        });
        await Promise.resolve();
        assert.equal(woke, false);
        log.append(event(1));
        await waiting;
        assert.equal(woke, true);

        const closing = log.waitForMore(1);
        log.close();
        await closing;
        const read = log.read(1);
        assert.equal(read.kind === "events" && read.done, true);
        assert.throws(() => log.append(event(2)));
    });

    it("an aborted wait resolves at once", async () => {
        const log = new JobEventLog();
        const controller = new AbortController();
        const waiting = log.waitForMore(-1, controller.signal);
        controller.abort();
        await waiting;
    });
});
