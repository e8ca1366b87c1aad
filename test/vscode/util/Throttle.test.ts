import assert from "node:assert/strict";
import {test} from "node:test";
import {Throttle, type Timers} from "../../../src/vscode/util/Throttle.js";

/** A manual clock: timers fire only when the test advances time. */
class FakeTimers implements Timers {
    private time = 0;
    private readonly pending = new Map<number, {at: number, callback: () => void}>();
    private nextId = 1;
    public now(): number {
        return this.time;
    }
    public setTimeout(callback: () => void, ms: number): unknown {
        const id = this.nextId++;
        this.pending.set(id, {at: this.time + ms, callback});
        return id;
    }
    public clearTimeout(handle: unknown): void {
        this.pending.delete(handle as number);
    }
    public advance(ms: number): void {
        this.time += ms;
        for (const [id, timer] of [...this.pending].sort((a, b) => a[1].at - b[1].at))
            if (timer.at <= this.time) {
                this.pending.delete(id);
                timer.callback();
            }
    }
}

test("a burst of updates renders once at once and once at the end of the interval", () => {
    const timers = new FakeTimers();
    let runs = 0;
    const throttle = new Throttle(() => runs++, 250, timers);
    for (let i = 0; i < 1000; i++)
        throttle.schedule(); // e.g. one per generated token
    assert.equal(runs, 1);
    timers.advance(249);
    assert.equal(runs, 1);
    timers.advance(1);
    assert.equal(runs, 2);
    timers.advance(1000);
    assert.equal(runs, 2, "nothing pending, nothing runs");
});

test("over 2 s of continuous updates it renders at most 4 times a second", () => {
    const timers = new FakeTimers();
    let runs = 0;
    const throttle = new Throttle(() => runs++, 250, timers);
    for (let ms = 0; ms < 2000; ms += 2) {
        throttle.schedule();
        timers.advance(2);
    }
    assert.ok(runs >= 8 && runs <= 9, `runs: ${runs}`);
});

test("dispose cancels the trailing run; flush runs it now", () => {
    const timers = new FakeTimers();
    let runs = 0;
    const throttle = new Throttle(() => runs++, 250, timers);
    throttle.schedule();
    throttle.schedule();
    throttle.flush();
    assert.equal(runs, 2);
    throttle.schedule();
    throttle.dispose();
    timers.advance(1000);
    assert.equal(runs, 2);
});
