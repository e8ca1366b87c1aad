/**
 * npm run bench:steps — what evaluating a prompt in abortable steps (src/engine/llama/runtime/PromptPrefill.ts) costs
 * against node-llama-cpp's own evaluation of the same tokens, same context, alternating over several rounds. Each side
 * goes from an empty sequence to the first sampled token: node-llama-cpp in one `evaluate` call (its batches of 128),
 * the served path in steps and then the rest with the first token, as a generation does. Also counts the native
 * decodes of each side. `--model` is a bench model (bench/benchModels.ts: `smollm2-135m`, `smollm2-135m-qwen2`, …);
 * `--step-ms` a list of step targets to compare; `--threads` the threads that evaluate the prompt.
 * Usage: npm run bench:steps [-- --model smollm2-135m-qwen2 --tokens 1600 --rounds 5 --threads 1 --step-ms 500,1000]
 */
import {parseArgs} from "node:util";
import type {LlamaContextSequence, Token} from "node-llama-cpp";
import {loadNodeLlamaCpp} from "../src/engine/models/loadBinding.js";
import {backendDefaults} from "../src/engine/engineDefaults.js";
import {defaultPromptStepMs, prefillPrompt} from "../src/engine/llama/runtime/PromptPrefill.js";
import {benchModel} from "./benchModels.js";
import {words} from "./filler.js";
import {median} from "./pairs.js";

const {values: args} = parseArgs({options: {
    model: {type: "string", default: "smollm2-135m"},
    tokens: {type: "string", default: "1600"},
    rounds: {type: "string", default: "3"},
    threads: {type: "string", default: "1"},
    "step-ms": {type: "string", default: String(defaultPromptStepMs)}
}});

/** Samples the first token after `tokens` (the rest of a prompt), as generation does once the steps are in. */
async function firstToken(sequence: LlamaContextSequence, tokens: readonly Token[]): Promise<void> {
    for await (const _token of sequence.evaluate(tokens as Token[], {temperature: 0}))
        break;
}

async function main(): Promise<void> {
    const threads = Number(args.threads);
    const count = Number(args.tokens);
    const targets = args["step-ms"].split(",").map(Number);
    const {getLlama} = await loadNodeLlamaCpp();
    const llama = await getLlama({gpu: false, build: "never", maxThreads: threads});
    const model = await llama.loadModel({modelPath: (await benchModel(args.model)).path});
    const context = await model.createContext({
        contextSize: Math.max(8192, count + 256), sequences: 1, threads, batchSize: backendDefaults("cpu").batchSize, flashAttention: false
    });
    // The native decodes each side makes, counted where node-llama-cpp calls them.
    const native = (context as unknown as {_ctx: {decodeBatch: () => Promise<void>}})._ctx;
    const decodeBatch = native.decodeBatch.bind(native);
    let decodes = 0;
    (context as unknown as {_ctx: unknown})._ctx = new Proxy(native, {get: (target, key) => {
        if (key === "decodeBatch")
            return () => (decodes++, decodeBatch());
        const value = Reflect.get(target, key) as unknown;
        return typeof value === "function" ? (value as (...values: unknown[]) => unknown).bind(target) : value;
    }});
    const sequence = context.getSequence();
    let seed = 1;
    let tokens: Token[] = [];
    const time = async (evaluate: () => Promise<unknown>) => {
        await sequence.clearHistory();
        decodes = 0;
        const started = performance.now();
        await evaluate();
        return {ms: performance.now() - started, decodes};
    };
    const stepEnds: number[][] = targets.map(() => []);
    const paths = [
        {name: "node-llama-cpp", evaluate: () => firstToken(sequence, tokens)},
        ...targets.map((targetStepMs, index) => ({
            name: `steps of ~${targetStepMs} ms`,
            evaluate: async () => {
                const ends: number[] = [];
                await prefillPrompt(sequence, tokens, {
                    maxStepTokens: backendDefaults("cpu").batchSize, targetStepMs, onProgress: ({evaluated}) => ends.push(evaluated)
                });
                stepEnds[index] = ends.slice(1);
                await firstToken(sequence, tokens.slice(sequence.nextTokenIndex));
            }
        }))
    ];
    const ratios = targets.map((): number[] => []);
    for (let round = 0; round < Number(args.rounds); round++) {
        // A new text each round, the same on each side.
        tokens = model.tokenize(words(count * 2, seed++)).slice(0, count);
        // Reversed on odd rounds, so that neither end of the order keeps its own effect.
        const order = round % 2 === 0 ? paths.map((_, index) => index) : paths.map((_, index) => paths.length - 1 - index);
        const runs: {ms: number, decodes: number}[] = [];
        for (const index of order)
            runs[index] = await time(paths[index]!.evaluate);
        targets.forEach((_, index) => ratios[index]!.push(runs[0]!.ms / runs[index + 1]!.ms));
        console.error(`round ${round + 1}: ${paths.map((path, index) => `${path.name} ${runs[index]!.ms.toFixed(0)} ms `
            + `(${runs[index]!.decodes} decodes)`).join(", ")}`);
    }
    for (const [index, target] of targets.entries())
        console.log(
            `${args.model}, ${count} prompt tokens, ${threads} thread(s): node-llama-cpp's one call / steps of ~${target} ms `
                + `= ${median(ratios[index]!).toFixed(3)} (median of ${ratios[index]!.length}; `
                + `${ratios[index]!.map((ratio) => ratio.toFixed(3)).join(", ")}); the steps ended at ${stepEnds[index]!.join(", ")}`
        );
    await context.dispose();
    await model.dispose();
}

main().catch((error) => {
    console.error(error);
    process.exit(1);
});
