/**
 * node-llama-cpp alone, in a process of its own, as a user of it would load a model and answer a first prompt: getLlama,
 * loadModel, createContext (one sequence), evaluate `TOKENS` filler tokens and sample one. Prints the milliseconds from
 * `loadModel` to that token (the binding's own start is not counted: the server has it loaded already) and the
 * process's resident memory then.
 * Usage (from bench/models.bench.ts): node --import tsx bench/directLoad.ts MODEL CONTEXT BATCH THREADS TOKENS
 */
import fs from "node:fs";
import {loadNodeLlamaCpp} from "../src/engine/models/loadBinding.js";
import {words} from "./filler.js";

const [modelPath, contextSize, batchSize, threads, tokens] = process.argv.slice(2);

async function main(): Promise<void> {
    const {getLlama} = await loadNodeLlamaCpp();
    const llama = await getLlama({gpu: false, build: "never", maxThreads: Number(threads)});
    const started = performance.now();
    const model = await llama.loadModel({modelPath: modelPath!});
    const context = await model.createContext({
        contextSize: Number(contextSize), sequences: 1, batchSize: Number(batchSize), threads: Number(threads), flashAttention: false
    });
    const prompt = model.tokenize(words(Number(tokens) * 2, 1)).slice(0, Number(tokens));
    for await (const _token of context.getSequence().evaluate(prompt, {temperature: 0}))
        break;
    const ms = performance.now() - started;
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync("/proc/self/status", "utf8"))?.[1];
    process.stdout.write(`${JSON.stringify({ms, tokens: prompt.length, rssBytes: rss == null ? null : Number(rss) * 1024})}\n`);
    await context.dispose();
    await model.dispose();
    await llama.dispose();
}

main().catch((error) => {
    console.error(error);
    process.exit(1);
});
