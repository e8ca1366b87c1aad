/**
 * npx tsx bench/promptEval.bench.ts [rounds] — prompt-evaluation time of the captured Codex request
 * (~21.8k tokens with the ChatML wrapper) under several context settings, on the shared stories260K model.
 * Each configuration loads its own engine, evaluates the whole prompt once (max_output_tokens 1, so the
 * time is the prompt's) and unloads; configurations alternate within each round so that load from other
 * processes spreads over all of them. Compare the ratios within one run, not absolute figures across runs.
 *
 * Configurations: LOCAL_RESPONSES_BENCH_CONFIGS, a JSON array of {batchSize?, threads, parallel, contextSize};
 * by default batch sizes 512 (node-llama-cpp's default), 2048 (the engine's) and 4096.
 */
import fs from "node:fs";
import path from "node:path";
import {defaultConfig} from "../src/host/config.js";
import {LlamaEngine, type LlamaEngineOptions} from "../src/engine/LlamaEngine.js";
import {ResponsesService} from "../src/responses/ResponsesService.js";
import {ResponseStore} from "../src/store/ResponseStore.js";
import {createResponse} from "../test/helpers/createResponse.js";
import {capturesDir, models} from "../test/helpers/paths.js";

type Config = Required<Pick<LlamaEngineOptions, "threads" | "parallel" | "contextSize">> & {batchSize?: number};

const defaults: Config[] = [
    {threads: 1, parallel: 1, contextSize: 24576, batchSize: 512},
    {threads: 1, parallel: 1, contextSize: 24576, batchSize: 2048},
    {threads: 1, parallel: 1, contextSize: 24576, batchSize: 4096}
];
const configs: Config[] = process.env.LOCAL_RESPONSES_BENCH_CONFIGS != null ? JSON.parse(process.env.LOCAL_RESPONSES_BENCH_CONFIGS) : defaults;
const rounds = Number(process.argv[2] ?? 1);
const body = {
    ...JSON.parse(fs.readFileSync(path.join(capturesDir, "codex-request.json"), "utf8")),
    stream: false, store: false, max_output_tokens: 1
};

const label = (config: Config) => `threads ${config.threads}, sequences ${config.parallel}, context ${config.contextSize}, batch ${config.batchSize ?? "engine default"}`;

async function evaluateOnce(config: Config): Promise<{ms: number, tokens: number, tokensPerSecond: number}> {
    // Each configuration's thread count for prompts too (what it measures is prompt evaluation at that count).
    const engine = new LlamaEngine({...config, promptThreads: config.threads});
    await engine.load(models.chatml);
    try {
        const service = new ResponsesService(engine, new ResponseStore(defaultConfig().store));
        const started = performance.now();
        const response = await createResponse(service, "bench", body);
        const ms = performance.now() - started;
        const tokens = response.usage!.input_tokens - response.usage!.input_tokens_details.cached_tokens;
        return {ms, tokens, tokensPerSecond: tokens / (ms / 1000)};
    } finally {
        await engine.dispose();
    }
}

async function main(): Promise<void> {
    const results = new Map<Config, number[]>(configs.map((config) => [config, []]));
    for (let round = 0; round < rounds; round++) {
        for (const config of configs) {
            const result = await evaluateOnce(config);
            results.get(config)!.push(result.ms);
            console.log(`round ${round + 1}: ${label(config)}: ${result.tokens} prompt tokens in ${(result.ms / 1000).toFixed(1)} s (${result.tokensPerSecond.toFixed(0)} tokens/s)`);
        }
    }
    const baseline = Math.min(...results.get(configs[0]!)!);
    console.log("\nbest time per configuration, and its ratio to the first:");
    for (const [config, times] of results) {
        const best = Math.min(...times);
        console.log(`  ${label(config)}: ${(best / 1000).toFixed(1)} s (×${(best / baseline).toFixed(2)})`);
    }
}

void main();
