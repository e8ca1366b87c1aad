import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {alignedStepTokens, nextStepRoom} from "../../../../src/engine/llama/runtime/PromptPrefill.js";

describe("nextStepRoom: the size of the next abortable prompt step", () => {
    it("holds what the target time holds at the last step's rate, up to the batch", () => {
        assert.equal(nextStepRoom({tokens: 64, ms: 100}, 500, 512).size, 320);
        assert.equal(nextStepRoom({tokens: 256, ms: 100}, 500, 512).size, 512);
    });

    it("holds 64 tokens deep in a prompt when they fit in twice the target, so each step's fixed cost stays small", () => {
        // 16 tokens in 300 ms: half a second holds 26, one second 53 — the step takes the 53.
        assert.equal(nextStepRoom({tokens: 16, ms: 300}, 500, 512).size, 53);
        // 32 tokens in 400 ms: 64 fit in 800 ms.
        assert.equal(nextStepRoom({tokens: 32, ms: 400}, 500, 512).size, 64);
    });

    it("never holds fewer than 16 tokens, nor more than the batch", () => {
        assert.equal(nextStepRoom({tokens: 16, ms: 4000}, 500, 512).size, 16);
        assert.equal(nextStepRoom({tokens: 16, ms: 300}, 500, 32).size, 32);
        assert.equal(nextStepRoom({tokens: 16, ms: 0}, 500, 512).size, 512);
    });

    it("may grow, when aligned, to what twice the target holds, never past the batch", () => {
        // 64 tokens in 400 ms: half a second holds 80, one second 160.
        assert.deepEqual(nextStepRoom({tokens: 64, ms: 400}, 500, 512), {size: 80, most: 160});
        assert.deepEqual(nextStepRoom({tokens: 64, ms: 400}, 500, 128), {size: 80, most: 128});
    });
});

describe("alignedStepTokens: a step ends on a multiple of its size's power of two, as node-llama-cpp's own batches do", () => {
    it("realigns after a first step of 64: the next full step ends on 128, then each on the next multiple of 128", () => {
        assert.equal(alignedStepTokens(64, 128, 128), 64);
        assert.equal(alignedStepTokens(128, 128, 128), 128);
    });

    it("grows to the next multiple when the step may hold it, else ends on the one before", () => {
        // About 100 tokens (quantum 64) from 256: up to 384 when 128 fit in twice the target time, else 320.
        assert.equal(alignedStepTokens(256, 100, 128), 128);
        assert.equal(alignedStepTokens(256, 100, 110), 64);
    });

    it("leaves a step narrower than 64 as it is: deep in a prompt, rounding it down would double the steps", () => {
        assert.equal(alignedStepTokens(1024, 60, 60), 60);
        assert.equal(alignedStepTokens(1000, 50, 80), 50);
    });

    it("keeps the size where aligning would halve it: a warm turn's first step after a reused prefix", () => {
        // 1,530 tokens reused: the first step (64, up to 128) ends on 1,600; with no room to grow it stays 64, since
        // ending on 1,536 would leave a 6-token step whose decode costs a pass over the weights.
        assert.equal(alignedStepTokens(1530, 64, 128), 70);
        assert.equal(alignedStepTokens(1530, 64, 64), 64);
    });
});
