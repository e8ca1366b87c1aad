import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {performance as nodePerformance} from "node:perf_hooks";
import {setTimeout as sleep} from "node:timers/promises";
import {BusyPoll} from "../../../../src/engine/llama/runtime/BusyPoll.js";

/** The event loop's utilization over `ms` of sleep: near 1 when it never waits in its poll, near 0 when it does. */
async function utilizationDuring(ms: number): Promise<number> {
    const start = nodePerformance.eventLoopUtilization();
    await sleep(ms);
    return nodePerformance.eventLoopUtilization(start).utilization;
}

describe("BusyPoll", () => {
    it("polls from the second fast release on, until the generation ends", async () => {
        const poll = new BusyPoll(50);
        const cadence = poll.follow();
        cadence.tokens();
        assert.equal(poll.polling, false, "one release says nothing of the cadence");
        cadence.tokens();
        assert.equal(poll.polling, true);
        cadence.end();
        assert.equal(poll.polling, false);
        cadence.tokens();
        cadence.tokens();
        assert.equal(poll.polling, false, "an ended generation never polls again");
    });

    it("lets go when tokens come slower than the bound, and polls again when they speed up", async () => {
        const poll = new BusyPoll(20);
        const cadence = poll.follow();
        cadence.tokens();
        cadence.tokens();
        assert.equal(poll.polling, true);
        await sleep(30);
        cadence.tokens();
        assert.equal(poll.polling, false);
        cadence.tokens();
        assert.equal(poll.polling, true);
        cadence.end();
    });

    it("polls while any of several generations is fast; 0 never polls", () => {
        const poll = new BusyPoll(50);
        const [a, b] = [poll.follow(), poll.follow()];
        for (const cadence of [a, b, a, b])
            cadence.tokens();
        a.end();
        assert.equal(poll.polling, true, "b still polls");
        b.end();
        assert.equal(poll.polling, false);

        const never = new BusyPoll(0);
        const cadence = never.follow();
        cadence.tokens();
        cadence.tokens();
        assert.equal(never.polling, false);
    });

    it("stops polling when the holder stalls (no tokens for stallFactor × the bound), and starts again with its next "
        + "fast tokens", async () => {
        const poll = new BusyPoll(10);
        const cadence = poll.follow();
        cadence.tokens();
        cadence.tokens();
        assert.equal(poll.polling, true);
        const stalled = await utilizationDuring(10 * BusyPoll.stallFactor + 100);
        assert.equal(poll.polling, false);
        assert.ok(stalled < 0.8, `utilization over a stall: ${stalled.toFixed(2)}`);
        cadence.tokens();
        cadence.tokens();
        assert.equal(poll.polling, true);
        cadence.end();
    });

    it("keeps the event loop turning while it polls, and lets it sleep again after", async () => {
        const poll = new BusyPoll(50);
        const cadence = poll.follow();
        cadence.tokens();
        cadence.tokens();
        const polling = await utilizationDuring(100);
        cadence.end();
        await sleep(10);
        const after = await utilizationDuring(100);
        assert.ok(polling > 0.9, `utilization while polling: ${polling.toFixed(2)}`);
        assert.ok(after < 0.5, `utilization after: ${after.toFixed(2)}`);
    });
});
