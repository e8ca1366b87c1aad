import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {ChatHistoryItem, Token, Tokenizer} from "node-llama-cpp";
import {loadNodeLlamaCpp} from "../../../../../src/engine/models/loadBinding.js";
import {createSegmentTokenizer} from "../../../../../src/engine/llama/prompt/SegmentTokenizer.js";
import {useTinyModel} from "../../../../helpers/tinyModel.js";

/** A tokenizer that counts its calls: one token per character, offset by the options so that keys matter. */
function countingTokenizer() {
    const calls: string[] = [];
    const tokenize = (text: string, specialTokens?: boolean | "builtin", options?: "trimLeadingSpace") => {
        calls.push(text);
        const offset = (specialTokens === true ? 1000 : 0) + (options === "trimLeadingSpace" ? 2000 : 0);
        return [...text].map((character) => (character.codePointAt(0)! + offset) as Token);
    };
    const tokenizer = Object.assign(tokenize,
        {detokenize: () => "", isSpecialToken: () => false, isEogToken: () => false}) as unknown as Tokenizer;
    return {tokenizer, calls};
}

describe("SegmentTokenizer", () => {
    it("tokenizes a segment once per set of options and returns copies", () => {
        const {tokenizer, calls} = countingTokenizer();
        const cached = createSegmentTokenizer(tokenizer);
        const first = cached("hello", false);
        first.push(0 as Token);
        assert.deepEqual(cached("hello", false), [104, 101, 108, 108, 111], "a caller's change does not reach the cache");
        assert.notDeepEqual(cached("hello", false, "trimLeadingSpace"), cached("hello", true), "options are part of the key");
        assert.deepEqual(calls, ["hello", "hello", "hello"]);
    });

    it("keeps at most maxSegments segments, dropping the least recently used", () => {
        const {tokenizer, calls} = countingTokenizer();
        const cached = createSegmentTokenizer(tokenizer, {maxSegments: 2});
        cached("a");
        cached("b");
        cached("a");
        cached("c");
        calls.length = 0;
        cached("a");
        cached("b");
        assert.deepEqual(calls, ["b"], "'b' was the least recently used when 'c' came");
    });

    it("keeps at most maxCharacters of text and passes larger segments straight through", () => {
        const {tokenizer, calls} = countingTokenizer();
        const cached = createSegmentTokenizer(tokenizer, {maxCharacters: 40});
        for (const letter of "xyzwv")
            cached(letter.repeat(8));
        calls.length = 0;
        cached("y".repeat(8));
        cached("x".repeat(8));
        assert.deepEqual(calls, ["x".repeat(8)], "the oldest segment left to make room for the fifth");
        calls.length = 0;
        cached("u".repeat(11));
        cached("u".repeat(11));
        assert.equal(calls.length, 2, "a segment over a quarter of the budget is not kept");
    });

    describe("with the real model's tokenizer", () => {
        const tinyModel = useTinyModel();

        it("renders growing chat prompts to exactly the model's tokens", async () => {
            const {LlamaText, SpecialToken, SpecialTokensText, resolveChatWrapper} = await loadNodeLlamaCpp();
            const cached = createSegmentTokenizer(tinyModel().tokenizer);
            const wrapper = resolveChatWrapper(tinyModel());
            const history: ChatHistoryItem[] = [{type: "system", text: "Be brief."}];
            for (let turn = 1; turn <= 6; turn++) {
                history.push({type: "user", text: `Question ${turn}: what happened next, little dog?`});
                history.push({type: "model", response: [` Once upon a time, there was a ball number ${turn}.`]});
                const {contextText} = wrapper.generateContextState({chatHistory: history});
                assert.deepEqual(contextText.tokenize(cached), contextText.tokenize(tinyModel().tokenizer), `turn ${turn}`);
            }
            const mixed = LlamaText([new SpecialTokensText("<|im_start|>"), "user\n hi", new SpecialToken("EOS"), " there"]);
            assert.deepEqual(mixed.tokenize(cached), mixed.tokenize(tinyModel().tokenizer));
            assert.deepEqual(mixed.tokenize(cached, "trimLeadingSpace"), mixed.tokenize(tinyModel().tokenizer, "trimLeadingSpace"));
        });

        it("renders a model's own answer as the tokens it generated, and only when they spell its text", async () => {
            const {resolveChatWrapper} = await loadNodeLlamaCpp();
            const model = tinyModel();
            const cached = createSegmentTokenizer(model.tokenizer);
            const answer = "Once upon a time, there was a ball.";
            // Letter by letter: the same text, not its canonical tokenization (as a sampled answer may be).
            const generated = [...answer].flatMap((letter) => model.tokenizer(letter, false, "trimLeadingSpace"));
            assert.equal(model.tokenizer.detokenize(generated), answer);
            assert.notDeepEqual(generated, model.tokenizer(answer, false, "trimLeadingSpace"));
            const wrong = model.tokenizer("Once upon a time, there was a dog.", false, "trimLeadingSpace");
            assert.equal(cached.rememberAnswer(answer, wrong), false, "tokens of another text are refused");
            assert.equal(cached.rememberAnswer(answer, generated), true);

            const history: ChatHistoryItem[] = [
                {type: "user", text: "Tell me a story."}, {type: "model", response: [answer]}, {type: "user", text: "More."}
            ];
            const {contextText} = resolveChatWrapper(model).generateContextState({chatHistory: history});
            const rendered = contextText.tokenize(cached);
            const at = rendered.findIndex((_token, index) => generated.every((token, offset) => rendered[index + offset] === token));
            assert.ok(at > 0, "the prompt holds the generated tokens");
            assert.equal(model.tokenizer.detokenize(rendered, true),
                model.tokenizer.detokenize(contextText.tokenize(model.tokenizer), true), "and spells the same prompt");
        });
    });
});
