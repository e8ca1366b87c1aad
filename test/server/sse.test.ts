import assert from "node:assert/strict";
import {EventEmitter} from "node:events";
import {describe, it} from "node:test";
import type {Response} from "express";
import {SseStream} from "../../src/server/sse.js";

/**
 * A response that records what reaches its socket: the frames written while it is corked leave together at the
 * uncork, as Node's http response does.
 */
class RecordingResponse extends EventEmitter {
    public readonly writes: Array<{at: number, frames: string[]}> = [];
    public writableEnded = false;
    public readonly socket = {setNoDelay: () => undefined};
    private corks = 0;
    private pending: string[] = [];

    public status(): this {
        return this;
    }

    public setHeader(): void {}

    public flushHeaders(): void {}

    public cork(): void {
        this.corks++;
    }

    public uncork(): void {
        if (this.corks > 0 && --this.corks === 0)
            this.flush();
    }

    public write(chunk: string): boolean {
        this.pending.push(chunk);
        if (this.corks === 0)
            this.flush();
        return true;
    }

    public end(): void {
        this.corks = 0;
        this.flush();
        this.writableEnded = true;
    }

    private flush(): void {
        if (this.pending.length > 0)
            this.writes.push({at: performance.now(), frames: this.pending.splice(0)});
    }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const delta = (sequence: number) => ({type: "response.output_text.delta", sequence_number: sequence, delta: "x"});

describe("SseStream: when events reach the socket", () => {
    it("events sent in one turn leave together at the next turn, one frame each", async () => {
        const res = new RecordingResponse();
        const stream = new SseStream(res as unknown as Response, {minWriteIntervalMs: 0});
        stream.send({type: "response.created", sequence_number: 0});
        stream.send({type: "response.in_progress", sequence_number: 1});
        assert.equal(res.writes.length, 0, "held until the turn ends");
        await nextTurn();
        assert.equal(res.writes.length, 1);
        assert.deepEqual(res.writes[0]!.frames.map((frame) => frame.split("\n")[0]),
            ["event: response.created", "event: response.in_progress"]);
        assert.match(res.writes[0]!.frames[1]!,
            /^event: response\.in_progress\ndata: \{"type":"response\.in_progress","sequence_number":1\}\n\n$/);
    });

    it("a delta sent soon after a write waits for the write interval, gathering the deltas that follow; a slow stream's deltas "
        + "leave at once", async () => {
        const res = new RecordingResponse();
        const stream = new SseStream(res as unknown as Response, {minWriteIntervalMs: 20});
        stream.send(delta(0));
        await nextTurn();
        assert.equal(res.writes.length, 1, "the first event leaves at the next turn");
        // A fast model: three deltas within a few ms of the write.
        for (const sequence of [1, 2, 3]) {
            stream.send(delta(sequence));
            await nextTurn();
        }
        assert.equal(res.writes.length, 1, "held until the interval has passed");
        await sleep(40);
        assert.equal(res.writes.length, 2);
        assert.equal(res.writes[1]!.frames.length, 3, "the three deltas leave in one write");
        assert.ok(res.writes[1]!.at - res.writes[0]!.at >= 19, `the writes are ${res.writes[1]!.at - res.writes[0]!.at} ms apart`);
        // A slow model: the interval passed since the last write, so the next delta leaves the next turn.
        await sleep(25);
        stream.send(delta(4));
        await nextTurn();
        assert.equal(res.writes.length, 3);
    });

    it("the first delta leaves at once after the opening events (time to first token), and only deltas wait", async () => {
        const res = new RecordingResponse();
        const stream = new SseStream(res as unknown as Response, {minWriteIntervalMs: 1000});
        stream.send({type: "response.created", sequence_number: 0});
        await nextTurn();
        stream.send(delta(1));
        await nextTurn();
        assert.equal(res.writes.length, 2, "a write of other events does not hold the first delta back");
        stream.send(delta(2));
        await nextTurn();
        assert.equal(res.writes.length, 2, "the second delta waits for the interval");
        stream.send({type: "response.output_text.done", sequence_number: 3});
        await nextTurn();
        assert.equal(res.writes.length, 3, "an event that is not a delta sends what is held at the next turn");
        assert.deepEqual(res.writes[2]!.frames.map((frame) => frame.split("\n")[0]),
            ["event: response.output_text.delta", "event: response.output_text.done"]);
        stream.end();
    });

    it("the end of the body carries what is still held", async () => {
        const res = new RecordingResponse();
        const stream = new SseStream(res as unknown as Response, {minWriteIntervalMs: 1000});
        stream.send(delta(0));
        await nextTurn();
        stream.send(delta(1));
        stream.send({type: "response.completed", sequence_number: 2});
        stream.end();
        assert.equal(res.writes.length, 2);
        assert.deepEqual(res.writes[1]!.frames.map((frame) => frame.split("\n")[0]),
            ["event: response.output_text.delta", "event: response.completed"]);
        await sleep(5);
        assert.equal(stream.send(delta(3)), false, "nothing is written after the end");
    });
});
