import assert from "node:assert/strict";
import {test} from "node:test";
import type {Token} from "node-llama-cpp";
import {answerStart} from "../../../../src/engine/llama/generation/tokenLogprobs.js";

const tokens = (...values: number[]) => values as unknown as Token[];

test("answerStart finds a cut answer in the context, when characters' first tokens were held back after it too", () => {
    const prompt = tokens(1, 2, 3);
    const answer = tokens(10, 11, 12);
    // Cut by the limit: the last token was sampled, never evaluated.
    assert.equal(answerStart([...prompt, ...tokens(10, 11)], answer, false), 3);
    // A batch evaluated it before the limit was seen.
    assert.equal(answerStart([...prompt, ...tokens(10, 11, 12)], answer, false), 3);
    // The limit cut a curly quote in the middle: its first two tokens follow the answer in the context, never shown as text.
    // (Stories260K-qwen answered `, “Have some tag! Please crawl` with 0 logprob entries for 24 tokens before this.)
    assert.equal(answerStart([...prompt, ...tokens(10, 11, 12, 226, 128)], answer, false), 3);
    // Ended by an end-of-turn token: the whole answer sits in the context, maybe a partial stop trigger after it.
    assert.equal(answerStart([...prompt, ...tokens(10, 11, 12)], answer, true), 3);
    assert.equal(answerStart([...prompt, ...tokens(10, 11, 12, 60)], answer, true), 3);
    // The latest place wins when the answer repeats the prompt's tokens.
    assert.equal(answerStart(tokens(10, 11, 12, 5, 10, 11, 12), answer, true), 4);
    // Not there: no scores rather than wrong ones.
    assert.equal(answerStart([...prompt, ...tokens(10, 99, 12)], answer, true), undefined);
});
