import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {LlamaContext, LlamaContextSequence, LlamaModel} from "node-llama-cpp";
import {BatchThreads} from "../../../../../src/engine/llama/runtime/BatchThreads.js";
import {useTinyModel} from "../../../../helpers/tinyModel.js";

describe("BatchThreads", () => {
    const tinyModel = useTinyModel();

    /** The last batch's thread count: as BatchThreads chose it, and as the native context reports llama.cpp was given it. */
    const lastThreads = (threads: BatchThreads, context: LlamaContext) =>
        [threads.lastThreads, (context as unknown as {_ctx: {getThreads(): number}})._ctx.getThreads()];

    /** Each sequence generates 3 tokens after " Then", all at once: after their inputs, a batch holds one token per sequence. */
    const generateTogether = (model: LlamaModel, sequences: LlamaContextSequence[]) => Promise.all(sequences.map(async (sequence) => {
        let generated = 0;
        for await (const _token of sequence.evaluate(model.tokenize(" Then"), {temperature: 0, yieldEogToken: true}))
            if (++generated >= 3)
                break;
    }));

    it("decodes prompt batches with the prompt threads and generated tokens with the generation threads", async () => {
        const model = tinyModel();
        const context = await model.createContext({contextSize: 512, threads: 1});
        try {
            const threads = BatchThreads.install(context, {promptThreads: 2, generationThreads: 1, promptBatchTokens: 16});
            assert.ok(threads != null, "node-llama-cpp's native context has the shape this reaches (initBatch, setThreads, decodeBatch)");
            const sequence = context.getSequence();
            const prompt = model.tokenize("Once upon a time, there was a little dog who liked to run in the park with his red ball.");
            assert.ok(prompt.length >= 16);
            await sequence.evaluateWithoutGeneratingNewTokens(prompt);
            assert.deepEqual(lastThreads(threads, context), [2, 2]);
            await generateTogether(model, [sequence]);
            assert.deepEqual(lastThreads(threads, context), [1, 1]);
        } finally {
            await context.dispose();
        }
    });

    it("by default counts any batch larger than one token per sequence as a prompt, however small (deep in a long prompt a step is a "
        + "few tokens)", async () => {
        const model = tinyModel();
        const context = await model.createContext({contextSize: 512, sequences: 4, threads: 1});
        try {
            const threads = BatchThreads.install(context, {promptThreads: 2, generationThreads: 1})!;
            const sequences = Array.from({length: 4}, () => context.getSequence());
            const step = model.tokenize("Once upon a time, there was a little dog").slice(0, 6);
            assert.equal(step.length, 6);
            await sequences[0]!.evaluateWithoutGeneratingNewTokens(step);
            assert.deepEqual(lastThreads(threads, context), [2, 2], "a 6-token prompt step on a 4-sequence context");
            await generateTogether(model, sequences);
            assert.deepEqual(lastThreads(threads, context), [1, 1], "4 sequences generating together");
        } finally {
            await context.dispose();
        }
    });

    it("changes nothing on a context whose native side is not the expected shape", () => {
        assert.equal(BatchThreads.install({_ctx: {decodeBatch: () => undefined}} as unknown as LlamaContext,
            {promptThreads: 2, generationThreads: 1}), null);
    });
});
