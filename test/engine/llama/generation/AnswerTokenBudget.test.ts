import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {Token} from "node-llama-cpp";
import {AnswerTokenBudget} from "../../../../src/engine/llama/generation/AnswerTokenBudget.js";

const tokens = (...ids: number[]) => ids as Token[];

describe("AnswerTokenBudget", () => {
    it("keeps releases whole while they fit, and says nothing overran", () => {
        const budget = new AnswerTokenBudget(3);
        assert.deepEqual(budget.take(tokens(1)), [1]);
        assert.deepEqual(budget.take(tokens(2, 3)), [2, 3]);
        assert.equal(budget.overran, false);
        assert.deepEqual(budget.taken, [1, 2, 3]);
    });

    it("cuts the release that goes past the budget (a held token and the one after it) and keeps nothing after", () => {
        const budget = new AnswerTokenBudget(2);
        assert.deepEqual(budget.take(tokens(1)), [1]);
        assert.deepEqual(budget.take(tokens(2, 3)), [2]);
        assert.equal(budget.overran, true);
        assert.deepEqual(budget.take(tokens(4)), []);
        assert.deepEqual(budget.taken, [1, 2]);
    });
});
