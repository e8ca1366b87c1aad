import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {EngineError} from "../../../../src/engine/EngineError.js";
import {commonPrefixLength, SequencePool} from "../../../../src/engine/llama/runtime/SequencePool.js";

type FakeSequence = {name: string, tokens: number[]};
const poolOf = (sequences: FakeSequence[], queueLimit = 2) => new SequencePool(sequences, (sequence) => sequence.tokens, {queueLimit});

describe("SequencePool", () => {
    it("hands out the free sequence holding the longest common prefix", async () => {
        const a = {name: "a", tokens: [1, 2, 3]};
        const b = {name: "b", tokens: [1, 2, 3, 4, 5, 6]};
        const c = {name: "c", tokens: []};
        const pool = poolOf([a, b, c]);
        const lease = await pool.acquire([1, 2, 3, 4, 5, 9]);
        assert.equal(lease.sequence, b);
        assert.equal(lease.sharedPrefixLength, 5);
        const next = await pool.acquire([1, 2, 7]);
        assert.equal(next.sequence, a, "b is busy, a shares two tokens");
    });

    it("queues in FIFO order and hands a released sequence to the first waiter", async () => {
        const pool = poolOf([{name: "only", tokens: []}], 2);
        const first = await pool.acquire([1]);
        const order: string[] = [];
        const second = pool.acquire([2]).then((lease) => {
            order.push("second");
            return lease;
        });
        const third = pool.acquire([3]).then((lease) => {
            order.push("third");
            return lease;
        });
        assert.equal(pool.queueDepth, 2);
        first.release();
        (await second).release();
        (await third).release();
        assert.deepEqual(order, ["second", "third"]);
        assert.equal(pool.busyCount, 0);
    });

    it("refuses at once when the wait queue is full", async () => {
        const pool = poolOf([{name: "only", tokens: []}], 1);
        await pool.acquire([1]);
        void pool.acquire([2]);
        await assert.rejects(pool.acquire([3]), (error: unknown) => error instanceof EngineError && error.kind === "queue_full");
    });

    it("drops a waiter whose signal aborts, and the queue moves on", async () => {
        const pool = poolOf([{name: "only", tokens: []}], 4);
        const held = await pool.acquire([1]);
        const controller = new AbortController();
        const aborted = pool.acquire([2], {signal: controller.signal});
        const waiting = pool.acquire([3]);
        controller.abort();
        await assert.rejects(aborted, (error: unknown) => error instanceof EngineError && error.kind === "aborted");
        assert.equal(pool.queueDepth, 1);
        held.release();
        assert.equal((await waiting).sequence.name, "only");
    });

    it("a released lease cannot be released twice into two waiters", async () => {
        const pool = poolOf([{name: "only", tokens: []}], 4);
        const held = await pool.acquire([1]);
        const w1 = pool.acquire([2]);
        const w2 = pool.acquire([3]);
        held.release();
        held.release();
        await w1;
        assert.equal(pool.queueDepth, 1, "the second waiter still waits");
        assert.equal(pool.busyCount, 1);
        void w2;
    });

    it("close fails waiters and refuses new requests", async () => {
        const pool = poolOf([{name: "only", tokens: []}], 4);
        await pool.acquire([1]);
        const waiting = pool.acquire([2]);
        pool.close(new EngineError("not_ready", "unloaded"));
        await assert.rejects(waiting, /unloaded/);
        await assert.rejects(pool.acquire([3]), /unloaded/);
    });

    it("commonPrefixLength", () => {
        assert.equal(commonPrefixLength([], [1]), 0);
        assert.equal(commonPrefixLength([1, 2, 3], [1, 2, 4]), 2);
        assert.equal(commonPrefixLength([1, 2], [1, 2, 3]), 2);
    });

    it("counts a prefix only within its partition, and marks another partition's sequence foreign", async () => {
        const a = {name: "a", tokens: [1, 2, 3, 4]};
        const b = {name: "b", tokens: [] as number[]};
        const pool = poolOf([a, b]);
        const first = await pool.acquire([1, 2, 3, 4], {partition: "key_a"});
        assert.equal(first.sequence, a);
        assert.equal(first.foreign, false);
        first.release();
        const other = await pool.acquire([1, 2, 3, 9], {partition: "key_b"});
        assert.equal(other.sharedPrefixLength, 0, "key B never counts key A's prefix");
        assert.equal(other.sequence, b, "ties go to the least recently used");
        b.tokens = [1, 2, 3, 9];
        other.release();
        const again = await pool.acquire([1, 2, 3, 9], {partition: "key_b"});
        assert.equal(again.sequence, b);
        assert.equal(again.sharedPrefixLength, 4, "its own prefix counts");
        const taken = await pool.acquire([5], {partition: "key_b"});
        assert.equal(taken.sequence, a);
        assert.equal(taken.foreign, true, "key A's tokens must be cleared before key B uses the sequence");
        assert.equal(taken.sharedPrefixLength, 0);
    });

    it("the next turn waits for the settling sequence that holds its prefix instead of starting cold elsewhere", async () => {
        const a = {name: "a", tokens: [] as number[]};
        const b = {name: "b", tokens: [] as number[]};
        const pool = poolOf([a, b]);
        const turn1 = await pool.acquire([1, 2, 3], {partition: "k"});
        turn1.sequence.tokens = [1, 2, 3, 4];
        turn1.settle();
        let got: FakeSequence | undefined;
        const turn2 = pool.acquire([1, 2, 3, 4, 5], {partition: "k"}).then((lease) => {
            got = lease.sequence;
            return lease;
        });
        await new Promise((resolve) => setImmediate(resolve));
        assert.equal(got, undefined, "waits while the state is saved");
        assert.equal(pool.queueDepth, 1);
        turn1.release();
        const lease = await turn2;
        assert.equal(lease.sequence, a);
        assert.equal(lease.sharedPrefixLength, 4);
    });

    it("does not wait for a settling sequence of another partition, nor for one still generating", async () => {
        const pool = poolOf([{name: "a", tokens: [] as number[]}, {name: "b", tokens: [] as number[]}]);
        const mine = await pool.acquire([1, 2, 3], {partition: "k"});
        mine.sequence.tokens = [1, 2, 3];
        const other = await pool.acquire([1, 2, 3, 4], {partition: "other"});
        assert.equal(other.sequence.name, "b", "not settled: another request does not wait for it");
        other.release();
        mine.settle();
        const foreign = await pool.acquire([1, 2, 3, 4], {partition: "other"});
        assert.equal(foreign.sequence.name, "b");
    });

    it("a freed sequence goes to the request waiting for it in particular before the FIFO queue", async () => {
        const pool = poolOf([{name: "only", tokens: [] as number[]}], 4);
        const held = await pool.acquire([7], {partition: "k"});
        const general = pool.acquire([9], {partition: "x"});
        held.sequence.tokens = [7, 8];
        held.settle();
        const preferring = pool.acquire([7, 8, 9], {partition: "k"});
        held.release();
        assert.equal((await preferring).sharedPrefixLength, 2);
        assert.equal(pool.queueDepth, 1, "the general waiter waits for the next release");
        void general;
    });

    it("keeps a session (affinity) on its sequence: another session sharing its prefix takes a free sequence and is told "
        + "where the prefix is (donor)", async () => {
        const shared = [1, 2, 3, 4];
        const main = {name: "main", tokens: [] as number[]};
        const spare = {name: "spare", tokens: [] as number[]};
        const pool = poolOf([main, spare]);
        const opened = await pool.acquire([...shared, 10], {affinity: "session-1"});
        main.tokens = [...shared, 10, 11];
        const other = opened.sequence === main ? spare : main;
        opened.release();

        const subagent = await pool.acquire([...shared, 20], {affinity: "session-2"});
        assert.equal(subagent.sequence, other, "the sub-agent leaves the main session's sequence alone");
        assert.equal(subagent.sharedPrefixLength, 0);
        assert.deepEqual(subagent.donor, {sequence: opened.sequence, sharedPrefixLength: 4});
        other.tokens = [...shared, 20];
        subagent.release();

        const nextTurn = await pool.acquire([...shared, 10, 11, 12], {affinity: "session-1"});
        assert.equal(nextTurn.sequence, opened.sequence, "the main session finds its own sequence");
        assert.equal(nextTurn.sharedPrefixLength, 6);
        assert.equal(nextTurn.donor, null, "no other sequence holds more of its prompt");
        nextTurn.release();

        const withoutKey = await pool.acquire([...shared, 30]);
        assert.equal(withoutKey.sequence, other, "a request naming no session takes the longest prefix (ties: least recently used)");
    });

    it("a session that waited for another session's settling sequence takes a free one when it is released", async () => {
        const holding = {name: "holding", tokens: [1, 2, 3, 4]};
        const empty = {name: "empty", tokens: [] as number[]};
        const pool = poolOf([holding, empty]);
        const first = await pool.acquire([1, 2, 3, 4, 5], {affinity: "session-1"});
        assert.equal(first.sequence, holding);
        first.settle();
        const waiting = pool.acquire([1, 2, 3, 9], {affinity: "session-2"});
        assert.equal(pool.queueDepth, 1, "it waits for the sequence holding its prefix rather than start cold");
        first.release();
        const lease = await waiting;
        assert.equal(lease.sequence, empty);
        assert.deepEqual(lease.donor, {sequence: holding, sharedPrefixLength: 3});
    });
});
