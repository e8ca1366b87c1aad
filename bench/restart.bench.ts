/**
 * npm run bench:restart — what the durable store and the prompt cache cost and save, in one run:
 *  1. time to first token of the captured Codex request (`../shared/reference/captures/codex-request.json`) on a fresh
 *     server: cold, then on a new server process-state over the same data folder (the prefix loaded from disk);
 *  2. streamed tokens/s with the durable store on vs `--store memory` (store: true, alternating pairs).
 *
 * The cold figure is paired with node-llama-cpp alone evaluating as many tokens in one call (every core, the
 * server's batch), after the server has stopped: a served cold prompt should cost what the engine needs.
 *
 * Usage: npm run bench:restart [-- --model smollm2-135m|stories260K] [--pairs N] [--cache-type-k q8_0]
 * The synthetic full-size model's cold Codex prompt takes minutes: that is the figure users feel.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {parseArgs} from "node:util";
import {defaultConfig, type HostConfig} from "../src/host/config.js";
import {LocalResponsesHost} from "../src/host/LocalResponsesHost.js";
import {loadNodeLlamaCpp} from "../src/engine/models/loadBinding.js";
import {defaultPromptThreads} from "../src/engine/engineDefaults.js";
import {backendDefaults} from "../src/engine/engineDefaults.js";
import {defaultKeyCacheType, requireKeyCacheType} from "../src/engine/keyCacheType.js";
import {nativeKeyCacheType, usableKeyCacheType} from "../src/engine/llama/runtime/nativeKeyCacheType.js";
import {capturesDir, models} from "../test/helpers/paths.js";
import {syntheticModel} from "../test/helpers/syntheticModel.js";
import {median} from "./pairs.js";

/** The batch the server evaluates with on the CPU (`backendDefaults`). */
const cpuBatchSize = backendDefaults("cpu").batchSize;

const {values: args} = parseArgs({
    options: {
        model: {type: "string", default: "smollm2-135m"}, pairs: {type: "string", default: "6"},
        "cache-type-k": {type: "string", default: defaultKeyCacheType}
    }
});
/** KV cache key type of the server and of node-llama-cpp alone (`--cache-type-k`; where the model allows it). */
const cacheTypeK = requireKeyCacheType(args["cache-type-k"], "--cache-type-k");
const apiKey = "sk-bench";
const contextSize = 24_576;

async function startHost(modelPath: string, storage: HostConfig["storage"]): Promise<{host: LocalResponsesHost, url: string}> {
    const host = new LocalResponsesHost({
        ...defaultConfig(), port: 0, threads: 1, contextSize, parallel: 1, cacheTypeK, apiKeys: [apiKey], storage
    });
    await host.loadModel(modelPath);
    return {host, url: await host.start()};
}

/**
 * Milliseconds to the end of a one-token answer, with the usage the server reported. Streamed: a cold prompt takes
 * longer than fetch's 300 s header timeout, and the stream's events (keep-alives included) keep it open.
 */
async function timeOneToken(url: string, body: Record<string, unknown>): Promise<{ms: number, input: number, cached: number}> {
    const started = performance.now();
    const response = await fetch(`${url}/responses`, {
        method: "POST",
        headers: {"content-type": "application/json", authorization: `Bearer ${apiKey}`},
        body: JSON.stringify({...body, stream: true, store: false, max_output_tokens: 1})
    });
    if (!response.ok)
        throw new Error(await response.text());
    const text = await response.text();
    const ms = performance.now() - started;
    const final = text.split("\n\n").map((block) => block.split("\n").find((line) => line.startsWith("data: ")))
        .filter((line): line is string => line != null).map((line) => JSON.parse(line.slice(6)))
        .find((event) => event.type === "response.completed" || event.type === "response.incomplete");
    if (final == null)
        throw new Error(`no terminal event: ${text.slice(-500)}`);
    const usage = final.response.usage as {input_tokens: number, input_tokens_details: {cached_tokens: number}};
    return {ms, input: usage.input_tokens, cached: usage.input_tokens_details.cached_tokens};
}

/** Milliseconds for node-llama-cpp alone to evaluate `count` tokens of filler and sample one, on a context like the server's. */
async function directColdMs(modelPath: string, count: number): Promise<number> {
    const {getLlama} = await loadNodeLlamaCpp();
    const threads = defaultPromptThreads();
    const llama = await getLlama({gpu: false, build: "never", maxThreads: threads});
    const model = await llama.loadModel({modelPath});
    const keys = nativeKeyCacheType(usableKeyCacheType(cacheTypeK, model).type);
    const context = await model.createContext({
        contextSize, sequences: 1, threads, batchSize: cpuBatchSize, flashAttention: false, experimentalKvCacheKeyType: keys
    });
    try {
        const filler = model.tokenize("the little dog ran to the park and found a red ball. ".repeat(Math.ceil(count / 8)));
        if (filler.length < count)
            throw new Error(`only ${filler.length} filler tokens for ${count}`);
        const started = performance.now();
        for await (const _token of context.getSequence().evaluate(filler.slice(0, count), {temperature: 0}))
            break;
        return performance.now() - started;
    } finally {
        await context.dispose();
        await model.dispose();
        await llama.dispose();
    }
}

/** Tokens/s of a streamed answer, first to last text delta. */
async function streamRate(url: string): Promise<number> {
    const response = await fetch(`${url}/responses`, {
        method: "POST",
        headers: {"content-type": "application/json", authorization: `Bearer ${apiKey}`},
        body: JSON.stringify({
            model: "m", input: "Tell me a story about a dog.", max_output_tokens: 200, temperature: 0, stream: true, store: true
        })
    });
    let first = 0;
    let last = 0;
    let deltas = 0;
    const decoder = new TextDecoder();
    const reader = response.body!.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
        const count = decoder.decode(read.value, {stream: true}).split("event: response.output_text.delta").length - 1;
        if (count > 0) {
            last = performance.now();
            first ||= last;
            deltas += count;
        }
    }
    return (deltas - 1) / ((last - first) / 1000);
}

async function main(): Promise<void> {
    const modelPath = args.model === "stories260K" ? models.chatml : await syntheticModel(args.model as "smollm2-135m");
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-restart-bench-"));
    const codex = JSON.parse(fs.readFileSync(path.join(capturesDir, "codex-request.json"), "utf8"));
    const rows: string[] = [];
    try {
        // 1. Cold, then after a restart over the same folder.
        let server = await startHost(modelPath, {kind: "durable", dataDir});
        const cold = await timeOneToken(server.url, codex);
        await server.host.dispose();
        server = await startHost(modelPath, {kind: "durable", dataDir});
        const restored = await timeOneToken(server.url, codex);
        await server.host.dispose();
        rows.push(
            `Codex request, ${cold.input} tokens: cold ${(cold.ms / 1000).toFixed(1)} s (${cold.cached} cached), after a `
                + `restart ${(restored.ms / 1000).toFixed(2)} s (${restored.cached} restored from `
                + `disk): ${(cold.ms / restored.ms).toFixed(1)}× faster (target ≥ 10×)`
        );
        console.error(rows.at(-1));
        const directMs = await directColdMs(modelPath, cold.input - cold.cached);
        rows.push(
            `  node-llama-cpp alone, ${cold.input - cold.cached} tokens in one call: ${(directMs / 1000).toFixed(1)} s; direct / served `
                + `cold: ${(directMs / cold.ms).toFixed(3)}`
        );
        console.error(rows.at(-1));

        // 2. Streaming with the durable store on vs memory, alternating.
        const durable = await startHost(modelPath, {kind: "durable", dataDir: path.join(dataDir, "streaming")});
        const memory = await startHost(modelPath, {kind: "memory", dataDir: null});
        const ratios: number[] = [];
        for (let pair = 0; pair < Number(args.pairs) + 1; pair++) {
            const [onDisk, inMemory] = pair % 2 === 0
                ? [await streamRate(durable.url), await streamRate(memory.url)]
                : [await streamRate(memory.url), await streamRate(durable.url)].reverse() as [number, number];
            if (pair > 0)
                ratios.push(onDisk / inMemory);
        }
        await durable.host.dispose();
        await memory.host.dispose();
        rows.push(
            `streamed tokens/s, durable store / memory store: ${median(ratios).toFixed(3)} (median `
                + `of ${ratios.length} pairs; target ≥ 0.98)`
        );
    } finally {
        fs.rmSync(dataDir, {recursive: true, force: true});
    }
    console.log(
        `\nLocal Responses restart benchmark (${args.model}, threads 1, prompt threads ${defaultPromptThreads()}, ${cacheTypeK} `
            + `keys)\n${rows.join("\n")}`
    );
}

main().catch((error) => {
    console.error(error);
    process.exit(1);
});
