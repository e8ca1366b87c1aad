import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import type {ChatHistoryItem} from "node-llama-cpp";
import {loadNodeLlamaCpp} from "../../../../../src/engine/models/loadBinding.js";
import {maxTokenCharacters, minimumPromptTokens} from "../../../../../src/engine/llama/prompt/promptBounds.js";
import {PromptTokenizer} from "../../../../../src/engine/llama/prompt/PromptTokenizer.js";
import {createSegmentTokenizer} from "../../../../../src/engine/llama/prompt/SegmentTokenizer.js";
import {TokenizerWorker} from "../../../../../src/engine/llama/prompt/TokenizerWorker.js";
import type {ChatTurn} from "../../../../../src/engine/types.js";
import {models} from "../../../../helpers/paths.js";
import {useTinyModel} from "../../../../helpers/tinyModel.js";

describe("PromptTokenizer: long segments off the event loop (real stories260K tokenizer)", () => {
    const tinyModel = useTinyModel();
    let worker: TokenizerWorker;
    before(() => {
        worker = new TokenizerWorker({modelPath: models.chatml, gpu: false});
    });
    after(() => worker.dispose());

    it("gives exactly the model's own tokens, with long segments tokenized in the worker", async () => {
        const {LlamaText, SpecialToken, resolveChatWrapper} = await loadNodeLlamaCpp();
        const wrapper = resolveChatWrapper(tinyModel());
        const long = "Once upon a time, there was a little girl named Lily. She loved to play outside.\n".repeat(300);
        const history: ChatHistoryItem[] = [
            {type: "system", text: "Be brief."},
            {type: "user", text: long},
            {type: "model", response: [" The end."]},
            {type: "user", text: `${long} And then?`},
            {type: "model", response: [""]}
        ];
        const {contextText} = wrapper.generateContextState({chatHistory: history});
        const segments = createSegmentTokenizer(tinyModel().tokenizer);
        const prompts = new PromptTokenizer(segments, worker, {offThreadCharacters: 1000});
        assert.deepEqual(await prompts.tokenize(contextText), contextText.tokenize(tinyModel().tokenizer));
        assert.ok(segments.holds(long, false, "trimLeadingSpace") || segments.holds(`${long} And then?`, false, "trimLeadingSpace"),
            "the worker's tokens are remembered for the next turn");
        const mixed = LlamaText([long, new SpecialToken("EOS"), long]);
        assert.deepEqual(await prompts.tokenize(mixed), mixed.tokenize(tinyModel().tokenizer));
    });

    it("keeps the event loop free while a 1.5 MB segment is tokenized", async () => {
        const {LlamaText} = await loadNodeLlamaCpp();
        const prompts = new PromptTokenizer(createSegmentTokenizer(tinyModel().tokenizer), worker);
        const text = LlamaText(["Tom had a red ball and a big dog. ".repeat(45_000)]);
        await prompts.tokenize(LlamaText(["warm the worker up ".repeat(1000)]));
        let longestGapMs = 0;
        let last = performance.now();
        const timer = setInterval(() => {
            const now = performance.now();
            longestGapMs = Math.max(longestGapMs, now - last);
            last = now;
        }, 5);
        const started = performance.now();
        const tokens = await prompts.tokenize(text);
        const tookMs = performance.now() - started;
        clearInterval(timer);
        assert.ok(tokens.length > 300_000);
        assert.ok(tookMs > 200, `the work itself is long (${tookMs.toFixed(0)} ms)`);
        assert.ok(longestGapMs < 50, `the event loop never waited more than ${longestGapMs.toFixed(1)} ms`);
    });

    it("bounds a prompt's tokens from below by its text and the longest vocabulary entry", () => {
        const longest = maxTokenCharacters(tinyModel());
        assert.ok(longest >= 2 && longest < 64, `stories260K's longest entry: ${longest}`);
        const turns: ChatTurn[] = [
            {role: "system", text: "Be brief."},
            {role: "user", text: "Once upon a time there was a dog. ".repeat(200)},
            {
                role: "model", parts: [
                    {type: "thought", text: "x".repeat(10_000)}, {type: "text", text: "Yes."},
                    {type: "call", name: "f", arguments: "{}", result: "ok"}
                ]
            }
        ];
        const actual = tinyModel().tokenize(turns.map((turn) => turn.role === "model" ? "Yes.{}ok" : turn.text).join("")).length;
        const minimum = minimumPromptTokens(turns, longest);
        assert.ok(minimum > 0 && minimum <= actual, `${minimum} ≤ ${actual}`);
    });
});
