import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {AfterDispatch} from "../../../../src/engine/llama/runtime/AfterDispatch.js";

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("AfterDispatch", () => {
    it("runs deferred work after the scheduled dispatch, never before it", async () => {
        const afterDispatch = new AfterDispatch();
        const order: string[] = [];
        afterDispatch.defer(() => order.push("event 1"));
        afterDispatch.dispatchSchedule(() => order.push("dispatch"));
        afterDispatch.defer(() => order.push("event 2"));
        assert.deepEqual(order, [], "nothing runs synchronously");
        for (let i = 0; i < 3; i++)
            await turn();
        assert.deepEqual(order, ["dispatch", "event 1", "event 2"]);
    });

    it("runs deferred work within two event-loop turns when nothing is dispatched", async () => {
        const afterDispatch = new AfterDispatch();
        let ran = false;
        afterDispatch.defer(() => void (ran = true));
        await turn();
        assert.equal(ran, false);
        await turn();
        await turn();
        assert.equal(ran, true);
    });

    it("drain runs everything queued at once, in order, including work queued while draining", () => {
        const afterDispatch = new AfterDispatch();
        const order: number[] = [];
        afterDispatch.defer(() => {
            order.push(1);
            afterDispatch.defer(() => order.push(3));
        });
        afterDispatch.defer(() => order.push(2));
        afterDispatch.drain();
        assert.deepEqual(order, [1, 2, 3]);
        afterDispatch.drain();
        assert.deepEqual(order, [1, 2, 3], "each task runs once");
    });
});
