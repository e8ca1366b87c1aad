import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {StopSequenceDetector} from "../../../../src/engine/llama/generation/StopSequenceDetector.js";

describe("StopSequenceDetector", () => {
    it("cuts the answer where a stop sequence begins and ignores what follows", () => {
        const stops = new StopSequenceDetector(["."]);
        assert.equal(stops.push("Once upon"), "Once upon");
        assert.equal(stops.push(" a time. The"), " a time");
        assert.equal(stops.stopped, true);
        assert.equal(stops.push("more"), "");
    });

    it("holds back a possible start of a multi-character stop until the next chunk decides", () => {
        const stops = new StopSequenceDetector(["\n\n", "END"]);
        assert.equal(stops.push("line\n"), "line");
        assert.equal(stops.push("next E"), "\nnext ");
        assert.equal(stops.push("ND"), "");
        assert.equal(stops.stopped, true);
    });

    it("a stop split across chunks is caught; held text that was no stop is flushed at the end", () => {
        const split = new StopSequenceDetector(["\n\n"]);
        assert.equal(split.push("a\n"), "a");
        assert.equal(split.push("\nb"), "");
        assert.equal(split.stopped, true);

        const notStop = new StopSequenceDetector(["\n\n"]);
        assert.equal(notStop.push("a\n"), "a");
        assert.equal(notStop.stopped, false);
        assert.equal(notStop.flush(), "\n");
    });

    it("the earliest of several stop sequences wins; none configured passes everything", () => {
        const stops = new StopSequenceDetector(["!", "."]);
        assert.equal(stops.push("Hi. Bye!"), "Hi");
        assert.equal(stops.stoppedAt, ".", "the sequence it ended at, which Messages reports as stop_sequence");
        const none = new StopSequenceDetector([]);
        assert.equal(none.active, false);
        assert.equal(none.push("a.b"), "a.b");
        assert.equal(none.stoppedAt, null);
    });
});
