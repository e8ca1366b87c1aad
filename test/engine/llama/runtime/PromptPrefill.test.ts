import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {nextStepTokens} from "../../../../src/engine/llama/runtime/PromptPrefill.js";

describe("nextStepTokens: the size of the next abortable prompt step", () => {
    it("holds what the target time holds at the last step's rate, up to the batch", () => {
        assert.equal(nextStepTokens({tokens: 64, ms: 100}, 500, 512), 320);
        assert.equal(nextStepTokens({tokens: 256, ms: 100}, 500, 512), 512);
    });

    it("holds 64 tokens deep in a prompt when they fit in twice the target, so each step's fixed cost stays small", () => {
        // 16 tokens in 300 ms: half a second holds 26, one second 53 — the step takes the 53.
        assert.equal(nextStepTokens({tokens: 16, ms: 300}, 500, 512), 53);
        // 32 tokens in 400 ms: 64 fit in 800 ms.
        assert.equal(nextStepTokens({tokens: 32, ms: 400}, 500, 512), 64);
    });

    it("never holds fewer than 16 tokens, nor more than the batch", () => {
        assert.equal(nextStepTokens({tokens: 16, ms: 4000}, 500, 512), 16);
        assert.equal(nextStepTokens({tokens: 16, ms: 300}, 500, 32), 32);
        assert.equal(nextStepTokens({tokens: 16, ms: 0}, 500, 512), 512);
    });
});
