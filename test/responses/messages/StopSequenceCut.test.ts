import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {StopSequenceCut} from "../../../src/responses/messages/StopSequenceCut.js";

describe("StopSequenceCut", () => {
    it("passes text through without stop sequences", () => {
        const cut = new StopSequenceCut([]);
        assert.equal(cut.push("abc"), "abc");
        assert.equal(cut.flush(), "");
        assert.equal(cut.stoppedAt, null);
    });

    it("holds a tail that may grow into a stop sequence, and cuts before it across deltas", () => {
        const cut = new StopSequenceCut(["END"]);
        assert.equal(cut.push("one E"), "one ");
        assert.equal(cut.push("N"), "");
        assert.equal(cut.push("D and more"), "");
        assert.equal(cut.stoppedAt, "END");
        assert.equal(cut.push("later"), "");
    });

    it("releases a held tail that did not become a stop sequence", () => {
        const cut = new StopSequenceCut(["END"]);
        assert.equal(cut.push("the E"), "the ");
        assert.equal(cut.push("Nd"), "ENd");
        assert.equal(cut.push("x EN"), "x ");
        assert.equal(cut.flush(), "EN");
        assert.equal(cut.stoppedAt, null);
    });

    it("stops at the earliest of several sequences", () => {
        const cut = new StopSequenceCut(["world", "lo"]);
        assert.equal(cut.push("hello world"), "hel");
        assert.equal(cut.stoppedAt, "lo");
    });
});
