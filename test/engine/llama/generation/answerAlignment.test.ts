import assert from "node:assert/strict";
import {test} from "node:test";
import type {Token} from "node-llama-cpp";
import {alignAnswer, answerStart} from "../../../../src/engine/llama/generation/answerAlignment.js";

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

test("alignAnswer takes the head from the context when the chat handed the first chunk tokenized again (real tokens)", () => {
    // Measured on stories260K-qwen (max_tokens 24): the chunks' tokens began [441, 416, 411], the text "Once" held back
    // and tokenized again, where the model had sampled [385]; the rest of the answer sat in the context as it was.
    const texts: Record<number, string> = {441: "O", 416: "n", 411: "ce", 385: " Once", 13: "\n", 328: " upon", 432: " a", 261: " time"};
    const detokenize = (list: readonly Token[]) => (list as unknown as number[]).map((token) => texts[token] ?? `<${token}>`).join("");
    const context = tokens(512, 261, 13, 385, 328, 432, 261);
    const answer = tokens(441, 416, 411, 328, 432, 261, 77);
    assert.deepEqual(alignAnswer(context, answer, false, detokenize), {start: 3, answer: tokens(385, 328, 432, 261, 77)});
    // Chunks that are the sampled tokens are taken as they are.
    assert.deepEqual(alignAnswer(context, tokens(385, 328, 432, 261, 77), false, detokenize),
        {start: 3, answer: tokens(385, 328, 432, 261, 77)});
    // A head that reads as other text is not guessed at: no scores rather than wrong ones.
    assert.equal(alignAnswer(context, tokens(441, 411, 328, 432, 261, 77), false, detokenize), undefined);
});
