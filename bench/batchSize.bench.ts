/**
 * npm run bench:batch — what the batch size does to prompt evaluation on the CPU, node-llama-cpp alone.
 *
 * node-llama-cpp makes llama.cpp's micro-batch as large as the batch, so the batch is the width of every matrix a
 * prompt step multiplies. For each model and thread count, one context per batch size; rounds alternate the sizes
 * (the first size of a round rotates), so a machine's drift spreads over all of them. Prints prompt tokens/s per size
 * (median over rounds) and its ratio to node-llama-cpp's default of 512:
 * - cold: a `--prompt`-token prompt no sequence holds, evaluated whole, one token sampled;
 * - with `--depth N`: the next `--depth-tokens` tokens after an N-token prefix (evaluated once, untimed), in steps of
 *   each size on one context, where attention over the prefix is most of a step's cost.
 *
 * Usage: npm run bench:batch [-- --models smollm2-135m,qwen2.5-0.5b,stories260K] [--batches 32,64,128,256,512]
 *        [--threads 1,2 (default: 1 and every core)] [--rounds 3] [--prompt 1600] [--depth 6000] [--depth-tokens 128]
 */
import os from "node:os";
import {parseArgs} from "node:util";
import type {LlamaContext, LlamaContextSequence, LlamaModel, Token} from "node-llama-cpp";
import {loadNodeLlamaCpp} from "../src/engine/models/loadBinding.js";
import {models} from "../test/helpers/paths.js";
import {syntheticModel, type SyntheticShape} from "../test/helpers/syntheticModel.js";
import {words} from "./filler.js";
import {median} from "./pairs.js";

const {values: args} = parseArgs({options: {
    models: {type: "string", default: "smollm2-135m,qwen2.5-0.5b,stories260K"},
    batches: {type: "string", default: "32,64,128,256,512"},
    threads: {type: "string", default: [...new Set([1, os.availableParallelism()])].join(",")},
    rounds: {type: "string", default: "3"},
    prompt: {type: "string", default: "1600"},
    depth: {type: "string", default: "0"},
    "depth-tokens": {type: "string", default: "128"}
}});
const list = (value: string) => value.split(",").map((item) => item.trim()).filter((item) => item !== "");
const batches = list(args.batches).map(Number);
const rounds = Number(args.rounds);
const promptTokens = Number(args.prompt);
const depth = Number(args.depth);
const depthTokens = Number(args["depth-tokens"]);
const baseline = 512;

/** `count` tokens of filler, different for each seed from the first token on (so nothing is cached). */
function fillerTokens(model: LlamaModel, count: number, seed: number): Token[] {
    return model.tokenize(`${seed} ${words(count * 2, seed)}`).slice(0, count);
}

/** Milliseconds to evaluate `tokens` after what `sequence` holds and sample one token. */
async function evaluate(sequence: LlamaContextSequence, tokens: Token[]): Promise<number> {
    const started = performance.now();
    for await (const _token of sequence.evaluate(tokens, {temperature: 0}))
        break;
    return performance.now() - started;
}

type Measure = {label: string, tokens: number, time: (context: LlamaContext, round: number) => Promise<number>};

async function benchModel(model: LlamaModel, threads: number): Promise<string[]> {
    const contextSize = Math.max(8192, promptTokens + 64, depth + depthTokens + 64);
    const contexts = new Map<number, LlamaContext>();
    for (const batch of batches)
        contexts.set(batch, await model.createContext({contextSize, sequences: 1, threads, batchSize: batch, flashAttention: false}));
    const prefix = fillerTokens(model, depth, 999);
    /** The context that holds the prefix (with `--depth`). */
    let held: LlamaContext | undefined;
    const measures: Measure[] = [{
        label: `cold ${promptTokens}`, tokens: promptTokens,
        time: async (context, round) => {
            const sequence = context.getSequence();
            try {
                return await evaluate(sequence, fillerTokens(model, promptTokens, round));
            } finally {
                void sequence.dispose();
            }
        }
    }];
    if (depth > 0) {
        // One context holds the prefix, and the tokens after it go in steps of each size, as the server's prompt steps
        // do (a step of N tokens is a micro-batch of N): with a prefix held in every size's context at once, the wide
        // sizes read at half this speed, an artifact of the five held caches, not of the size.
        held = await model.createContext({contextSize, sequences: 1, threads, batchSize: Math.max(...batches), flashAttention: false});
        const sequence = held.getSequence();
        await sequence.evaluateWithoutGeneratingNewTokens(prefix);
        measures.push({
            label: `${depthTokens} after ${depth}, in steps of that size,`, tokens: depthTokens,
            time: async (context, round) => {
                const step = context.batchSize; // the step size this context stands for
                await sequence.eraseContextTokenRanges([{start: depth, end: sequence.nextTokenIndex}]);
                const tokens = fillerTokens(model, depthTokens, round);
                const started = performance.now();
                for (let index = 0; index < tokens.length; index += step)
                    await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(index, index + step));
                return performance.now() - started;
            }
        });
    }
    const lines: string[] = [];
    try {
        for (const measure of measures) {
            const rates = new Map<number, number[]>(batches.map((batch) => [batch, []]));
            // A warm-up per context, then rounds whose first size rotates.
            for (const context of contexts.values())
                await measure.time(context, 1000);
            for (let round = 0; round < rounds; round++)
                for (let index = 0; index < batches.length; index++) {
                    const batch = batches[(index + round) % batches.length]!;
                    rates.get(batch)!.push(measure.tokens / (await measure.time(contexts.get(batch)!, round) / 1000));
                }
            const base = rates.has(baseline) ? median(rates.get(baseline)!) : undefined;
            for (const [batch, values] of rates) {
                const rate = median(values);
                const ratio = base != null ? ` (${(rate / base).toFixed(2)} × batch ${baseline})` : "";
                lines.push(
                    `  threads ${threads}, ${measure.label} tokens, batch ${String(batch).padStart(4)}: ${rate.toFixed(0).padStart(5)} `
                        + `tokens/s${ratio}; rounds ${values.map((value) => value.toFixed(0)).join(" ")}`
                );
            }
            console.error(lines.slice(-rates.size).join("\n"));
        }
    } finally {
        for (const context of contexts.values())
            await context.dispose();
        await held?.dispose();
    }
    return lines;
}

async function main(): Promise<void> {
    const {getLlama} = await loadNodeLlamaCpp();
    const threadCounts = list(args.threads).map(Number);
    const llama = await getLlama({gpu: false, build: "never", maxThreads: Math.max(...threadCounts)});
    const report: string[] = [];
    for (const name of list(args.models)) {
        const model = await llama.loadModel({
            modelPath: name === "stories260K" ? models.chatml : await syntheticModel(name as SyntheticShape)
        });
        report.push(name);
        try {
            for (const threads of threadCounts)
                report.push(...await benchModel(model, threads));
        } finally {
            await model.dispose();
        }
    }
    console.log(`\nPrompt evaluation by batch size (node-llama-cpp alone, CPU, ${rounds} rounds)\n${report.join("\n")}`);
}

main().then(() => process.exit(0), (error: unknown) => {
    console.error(error);
    process.exit(1);
});
