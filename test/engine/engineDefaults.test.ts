import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {defaultContextBudgetTokens, planContext} from "../../src/engine/engineDefaults.js";

const unset = {contextSize: null, parallel: null};

describe("planContext: the local model's context per sequence and sequences", () => {
    it("with nothing set, a sequence gets the trained context up to the budget, and the budget's rest makes up to 4 sequences", () => {
        assert.deepEqual(planContext(2048, unset), {contextSize: 2048, parallel: 4});
        assert.deepEqual(planContext(8192, unset), {contextSize: 8192, parallel: 4});
        assert.deepEqual(planContext(16384, unset), {contextSize: 16384, parallel: 2});
        assert.deepEqual(planContext(32768, unset), {contextSize: 32768, parallel: 1});
        assert.deepEqual(planContext(131072, unset), {contextSize: 32768, parallel: 1},
            "a 128k model: one sequence a coding agent's prompt fits in");
        assert.deepEqual(planContext(20000, unset), {contextSize: 20000, parallel: 1});
    });

    it("never plans more cache than the budget unless told to", () => {
        for (const trained of [512, 2048, 4096, 8192, 12288, 16384, 24576, 32768, 65536, 1 << 20]) {
            const {contextSize, parallel} = planContext(trained, unset);
            assert.ok(contextSize * parallel <= defaultContextBudgetTokens, `${trained}: ${contextSize} × ${parallel}`);
            assert.ok(parallel >= 1 && parallel <= 4);
        }
    });

    it("a context set alone gets as many sequences as the budget holds, 1 to 4", () => {
        assert.deepEqual(planContext(32768, {contextSize: 4096, parallel: null}), {contextSize: 4096, parallel: 4});
        assert.deepEqual(planContext(32768, {contextSize: 16384, parallel: null}), {contextSize: 16384, parallel: 2});
        assert.deepEqual(planContext(2048, {contextSize: 65536, parallel: null}), {contextSize: 65536, parallel: 1});
    });

    it("sequences set alone share the budget, each at least 8192 tokens and at most the trained context", () => {
        assert.deepEqual(planContext(32768, {contextSize: null, parallel: 1}), {contextSize: 32768, parallel: 1});
        assert.deepEqual(planContext(32768, {contextSize: null, parallel: 2}), {contextSize: 16384, parallel: 2});
        assert.deepEqual(planContext(32768, {contextSize: null, parallel: 8}), {contextSize: 8192, parallel: 8});
        assert.deepEqual(planContext(2048, {contextSize: null, parallel: 2}), {contextSize: 2048, parallel: 2});
    });

    it("both set: exactly that", () => {
        assert.deepEqual(planContext(2048, {contextSize: 1024, parallel: 7}), {contextSize: 1024, parallel: 7});
    });
});
