/**
 * node-llama-cpp alone in a process of its own, for bench/processes.bench.ts: loads a model with one sequence and the
 * given batch size and thread count, then answers the parent's requests over IPC: `{kind: "prefill", tokens}` evaluates
 * that many fresh filler tokens and samples one (milliseconds), `{kind: "decode", tokens}` samples that many greedy
 * tokens after a short prompt with the raw evaluate loop (tokens/s after the first).
 * Usage (from the bench): node --import tsx bench/directProcess.ts MODEL CONTEXT BATCH THREADS
 */
import type {LlamaContextSequence, LlamaModel} from "node-llama-cpp";
import {loadNodeLlamaCpp} from "../src/engine/models/loadBinding.js";
import {words} from "./filler.js";

const [modelPath, contextSize, batchSize, threads] = process.argv.slice(2);
let seed = 1;

type Request = {kind: "prefill" | "decode", tokens: number};
type Loaded = {model: LlamaModel, sequence: LlamaContextSequence};

async function load(): Promise<Loaded> {
    const {getLlama} = await loadNodeLlamaCpp();
    const llama = await getLlama({gpu: false, build: "never", maxThreads: Number(threads)});
    const model = await llama.loadModel({modelPath: modelPath!});
    const context = await model.createContext({
        contextSize: Number(contextSize), sequences: 1, batchSize: Number(batchSize), threads: Number(threads), flashAttention: false
    });
    return {model, sequence: context.getSequence()};
}

async function prefill({model, sequence}: Loaded, count: number): Promise<number> {
    await sequence.clearHistory();
    const tokens = model.tokenize(words(count * 2, seed++)).slice(0, count);
    const started = performance.now();
    for await (const _token of sequence.evaluate(tokens, {temperature: 0}))
        break;
    return performance.now() - started;
}

async function decode({model, sequence}: Loaded, count: number): Promise<number> {
    await sequence.clearHistory();
    const prompt = model.tokenize(words(20, seed++));
    let first = 0;
    let generated = 0;
    for await (const _token of sequence.evaluate(prompt, {temperature: 0, yieldEogToken: true})) {
        first ||= performance.now();
        if (++generated >= count)
            break;
    }
    return (generated - 1) / ((performance.now() - first) / 1000);
}

void load().then((loaded) => {
    process.on("message", (request: Request) => {
        const work = request.kind === "prefill" ? prefill(loaded, request.tokens) : decode(loaded, request.tokens);
        void work.then((value) => process.send!({value}), (error: unknown) => process.send!({error: String(error)}));
    });
    process.send!({ready: true});
});
