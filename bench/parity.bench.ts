/**
 * npm run bench — the server against node-llama-cpp, in one run, for each model given (default: the shared stories260K,
 * then the synthetic full-size SmolLM2-135M body with its 514-token vocabulary and with Qwen2's 151,936-token one):
 *  1. prompt evaluation at depth: cold time to first token of ~800-, ~3,300- and ~6,000-token prompts, node-llama-cpp
 *     alone / served, each in a process of its own as a user runs them (bench/depthFigure.ts: the server as
 *     `dist/cli.js serve`; node-llama-cpp with one sequence of the same size and its best batch). Then, as "1b", the
 *     same against node-llama-cpp in the bench's process with the server's own context plan (size, sequences, batch),
 *     which isolates the server's own code from its settings;
 *  2. generation: streamed tokens/s, served / direct (greedy, same prompt, same length), and node-llama-cpp's completion
 *     and chat APIs (which the server runs for plain text, and for tools, JSON and thoughts) / direct, node-llama-cpp's
 *     own share of the gap, and served / direct with its event loop polling as the server's does (what serving costs);
 *  3. aggregate tokens/s of 1, 4 and 8 concurrent streaming clients, and the engine's own rate for 4 sequences
 *     decoded together (direct), which is the ceiling on one core;
 *  4. a 10-turn previous_response_id chain: time to first token of turn 10 / turn 1;
 *  5. warm prefix: a request whose first ~1,500 tokens are cached, served / the direct evaluation of its new tokens;
 *  6. an agent's session across a hard restart (bench/agentRestartFigure.ts): Codex's and Claude Code's captured first
 *     requests, `kill -9`, the next turn: cached tokens and how many times faster its first token is than cold.
 *
 * "Direct" in figures 1b–5 is node-llama-cpp with nothing of ours: a context of the same size, threads and batch (the
 * server's), the same number of tokens evaluated at the same depth, then one token sampled. The client is a separate
 * low-priority process (sseClient.mjs). Served and direct runs alternate in pairs; each figure is the median of the
 * paired ratios. The pairs of figures 1b, 2 and 3 are spread over `--placements` loads of the model on each side (3 by
 * default): two identical contexts in one process do not run equally fast (by up to a few percent, see
 * docs/performance.md), so pairs from a single load would count that difference as the server's.
 *
 * Usage: npm run bench [-- --models stories260K,smollm2-135m] [--pairs N] [--placements N] [--only 1,2,3,4,5,6] [--cache-type-k q8_0]
 *        [--busy-poll-below-ms N (the server's; 0: never polls)] [--depths 800,3300,6000] [--direct-batches 128,512]
 *        [--restart-model smollm2-135m-qwen2 (figure 6's: a real tokenizer gives the captures their real token counts)]
 * Models (bench/benchModels.ts): stories260K, smollm2-135m, qwen2.5-0.5b, and the same bodies with a real vocabulary, whose
 * output layer, sampling and tokenizer cost what a real model's do: smollm2-135m-qwen2, qwen2.5-0.5b-qwen2 (151,936 tokens),
 * smollm2-135m-gemma4 (262,144), any `<shape>-<vocab>`; each generated on first use into ~/.cache/local-responses/models.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {parseArgs} from "node:util";
import type {
    ChatHistoryItem, Llama, LlamaChat, LlamaCompletion, LlamaContext, LlamaContextSequence, LlamaModel, Token
} from "node-llama-cpp";
import {BusyPoll, defaultBusyPollBelowTokenMs} from "../src/engine/llama/runtime/BusyPoll.js";
import {backendDefaults} from "../src/engine/engineDefaults.js";
import {defaultKeyCacheType, requireKeyCacheType} from "../src/engine/keyCacheType.js";
import {nativeKeyCacheType, usableKeyCacheType} from "../src/engine/llama/runtime/nativeKeyCacheType.js";
import {loadNodeLlamaCpp} from "../src/engine/models/loadBinding.js";
import {defaultConfig} from "../src/host/config.js";
import {LocalResponsesHost} from "../src/host/LocalResponsesHost.js";
import {benchModel, type BenchModel} from "./benchModels.js";
import {agentRestartRows} from "./agentRestartFigure.js";
import {coldPromptAtDepth} from "./depthFigure.js";
import {words} from "./filler.js";
import {alternating, median, quantile} from "./pairs.js";
import {SseClientProcess} from "./sseClientProcess.js";

/** The batch the server evaluates with on the CPU (`backendDefaults`). */
const cpuBatchSize = backendDefaults("cpu").batchSize;

const {values: args} = parseArgs({
    options: {
        models: {type: "string", default: "stories260K,smollm2-135m,smollm2-135m-qwen2"}, pairs: {type: "string"},
        placements: {type: "string", default: "3"}, depths: {type: "string", default: "800,3300,6000"},
        "direct-batches": {type: "string", default: "128,512"}, "restart-model": {type: "string", default: "smollm2-135m-qwen2"},
        only: {type: "string"}, "cache-type-k": {type: "string", default: defaultKeyCacheType},
        "busy-poll-below-ms": {type: "string", default: String(defaultBusyPollBelowTokenMs)}
    }
});
/** KV cache key type on both sides (`--cache-type-k`; where the model allows it, see usableKeyCacheType). */
const cacheTypeK = requireKeyCacheType(args["cache-type-k"], "--cache-type-k");
/** The served side's `--busy-poll-below-ms` (0: its event loop never polls). */
const busyPollBelowTokenMs = Number(args["busy-poll-below-ms"]);
/** Whether a figure (1–5) was asked for: `--only 2,4` measures those alone (all by default). */
const only = (figure: number) => args.only == null || args.only.split(",").map(Number).includes(figure);
const apiKey = "sk-bench";
const contextSize = 8192;
const parallel = 4;

const spread = (values: readonly number[]) => `${quantile(values, 0.25).toFixed(2)}–${quantile(values, 0.75).toFixed(2)}`;


let client: SseClientProcess;
const stream = (bodies: Record<string, unknown>[]) => client.stream(bodies);
const streamOnce = (body: Record<string, unknown>) => client.streamOnce(body);

/**
 * node-llama-cpp alone: a context like the server's (size, threads, batch). Generation goes on
 * through end-of-generation tokens (`yieldEogToken`), so a direct run makes exactly as many tokens as asked.
 */
class Direct {
    private chat: LlamaChat | undefined;
    private completion: LlamaCompletion | undefined;

    private constructor(
        private readonly model: LlamaModel,
        private readonly context: LlamaContext,
        private readonly sequences: LlamaContextSequence[],
        private readonly filler: Token[]
    ) {}

    /** One binding for every load: each `Llama` made registers its own process exit hook. */
    private static llama: Promise<Llama> | undefined;

    public static async open(modelPath: string, sequences: number): Promise<Direct> {
        Direct.llama ??= loadNodeLlamaCpp().then(({getLlama}) => getLlama({gpu: false, build: "never", maxThreads: 1}));
        const model = await (await Direct.llama).loadModel({modelPath});
        const keys = nativeKeyCacheType(usableKeyCacheType(cacheTypeK, model).type);
        // The server's batch on the CPU, not node-llama-cpp's default (512): a narrower batch evaluates prompts 1.1-1.3x
        // faster here (docs/performance.md, "Batch size on the CPU"), so a direct side at 512 flattered the server's ratio.
        const context = await model.createContext({
            contextSize, sequences, threads: 1, batchSize: cpuBatchSize, flashAttention: false, experimentalKvCacheKeyType: keys
        });
        const all = Array.from({length: sequences}, () => context.getSequence());
        return new Direct(model, context, all, model.tokenize(words(8000, 99)));
    }

    /** Milliseconds to evaluate `evaluated` tokens after `cached` ones and sample one token. */
    public async timeToFirstToken(cached: number, evaluated: number): Promise<number> {
        const sequence = this.sequences[0]!;
        await sequence.clearHistory();
        if (cached > 0)
            await sequence.evaluateWithoutGeneratingNewTokens(this.filler.slice(0, cached));
        const started = performance.now();
        for await (const _token of sequence.evaluate(this.filler.slice(cached, cached + evaluated), {temperature: 0}))
            break;
        return performance.now() - started;
    }

    /**
     * Tokens/s of `sequenceCount` sequences generating `length` tokens each at once, after a `promptTokens`-token prompt;
     * with `polling`, the event loop polls throughout, as the server's does while tokens come fast (BusyPoll).
     */
    public async generationRate(sequenceCount: number, length: number, promptTokens = 20, polling = false): Promise<number> {
        const sequences = this.sequences.slice(0, sequenceCount);
        await Promise.all(sequences.map((sequence) => sequence.clearHistory()));
        const cadence = polling ? new BusyPoll(Infinity).follow() : undefined;
        cadence?.tokens();
        cadence?.tokens();
        try {
            let started = 0;
            let generated = 0;
            await Promise.all(sequences.map(async (sequence: LlamaContextSequence, index) => {
                const prompt = this.filler.slice(index * 20, index * 20 + promptTokens);
                await sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(0, -1));
                started ||= performance.now();
                let count = 0;
                for await (const _token of sequence.evaluate(prompt.slice(-1), {temperature: 0, yieldEogToken: true})) {
                    generated++;
                    if (++count >= length)
                        break;
                }
            }));
            return generated / ((performance.now() - started) / 1000);
        } finally {
            cadence?.end();
        }
    }

    /**
     * Tokens/s of node-llama-cpp's own generation APIs streaming `length` tokens greedily after a short chat prompt,
     * with nothing of ours: its chat API (`LlamaChat`, which the server runs for tools, JSON output and thoughts) and
     * its completion API on the same rendered prompt (`LlamaCompletion`, which the server runs for a plain-text
     * answer). Each is made once per sequence, as the server makes them: `LlamaChat` resolves the model's chat wrapper
     * when it is made, which costs more than a whole stories260K answer and leaves garbage behind.
     */
    public async apiRate(api: "chat" | "completion", prompt: string, length: number): Promise<number> {
        const {LlamaChat, LlamaCompletion} = await loadNodeLlamaCpp();
        const sequence = this.sequences[0]!;
        await sequence.clearHistory();
        this.chat ??= new LlamaChat({contextSequence: sequence});
        this.completion ??= new LlamaCompletion({contextSequence: sequence});
        const history = [{type: "user", text: prompt}, {type: "model", response: []}] satisfies ChatHistoryItem[];
        let first = 0;
        let tokens = 0;
        const count = (generated: readonly Token[]) => {
            if (generated.length === 0)
                return;
            first ||= performance.now();
            tokens += generated.length;
        };
        const options = {maxTokens: length, temperature: 0, repeatPenalty: false} as const;
        if (api === "chat")
            await this.chat.generateResponse(history, {...options, onResponseChunk: (chunk) => count(chunk.tokens)});
        else {
            const rendered = this.chat.chatWrapper.generateContextState({chatHistory: history});
            await this.completion.generateCompletion(rendered.contextText.tokenize(this.model.tokenizer), {
                ...options, customStopTriggers: rendered.stopGenerationTriggers, onToken: count
            });
        }
        return (tokens - 1) / ((performance.now() - first) / 1000);
    }

    /**
     * Tokens/s of the same work the served clients did, from start to end: each sequence evaluates a prompt of as many
     * tokens as its client's (cold), then samples as many tokens as its client got, all sequences at once.
     */
    public async sameJob(shapes: ReadonlyArray<{input: number, tokens: number}>): Promise<number> {
        const sequences = this.sequences.slice(0, shapes.length);
        await Promise.all(sequences.map((sequence) => sequence.clearHistory()));
        const started = performance.now();
        await Promise.all(shapes.map(async ({input, tokens}, index) => {
            const prompt = this.filler.slice(index * 50, index * 50 + input);
            let count = 0;
            for await (const _token of sequences[index]!.evaluate(prompt, {temperature: 0.8, yieldEogToken: true}))
                if (++count >= tokens)
                    break;
        }));
        return shapes.reduce((sum, shape) => sum + shape.tokens, 0) / ((performance.now() - started) / 1000);
    }

    public async close(): Promise<void> {
        await this.context.dispose();
        await this.model.dispose();
    }
}

/** The five figures on one model, as table rows: figure, value, spread and target. */
async function compare(name: string, modelPath: string, fullSize: boolean): Promise<string[][]> {
    const pairs = Number(args.pairs ?? (fullSize ? 3 : 7));
    // One thread for prompts too: node-llama-cpp direct is given one (--prompt-threads is measured in docs/api.md).
    // The durable store users get by default (its prompt cache and write-before-acknowledge included), in a folder of its own.
    const storage = {kind: "durable" as const, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "lr-bench-store-"))};
    const host = new LocalResponsesHost({
        ...defaultConfig(), port: 0, threads: 1, promptThreads: 1, contextSize, parallel, cacheTypeK, busyPollBelowTokenMs,
        apiKeys: [apiKey], storage
    });
    await host.loadModel(modelPath);
    const url = await host.start();
    client = SseClientProcess.start(url, apiKey);
    let direct = await Direct.open(modelPath, parallel);
    const log = (line: string) => console.error(`[${name}] ${line}`);
    const placements = Math.max(1, Number(args.placements));
    /**
     * Whether pair `pair` of `count` begins a placement. A placement after the first loads the served model and the
     * direct one again, so that the buffers of each side are allocated anew.
     */
    const beginsPlacement = async (pair: number, count: number): Promise<boolean> => {
        if (pair % Math.ceil(count / placements) !== 0)
            return false;
        if (pair > 0) {
            await host.unloadModel();
            await host.loadModel(modelPath);
            await direct.close();
            direct = await Direct.open(modelPath, parallel);
            log(`placement ${pair / Math.ceil(count / placements) + 1}: both models loaded again`);
        }
        return true;
    };
    const rows: string[][] = [];
    let seed = 0;
    try {
        // Warm-up: both paths once.
        const warmUp = async () => {
            await streamOnce({model: "m", input: words(50, seed++), max_output_tokens: 8, temperature: 0, store: false});
            await direct.timeToFirstToken(0, 50);
        };
        await warmUp();

        // 1. Cold time to first token: a prompt no sequence holds (its opening words differ), one token generated.
        const tokensPerWord = await host.engine.countPromptTokens([{role: "user", text: words(1000, 0)}]) / 1000;
        const wordsFor = (tokens: number) => Math.round(tokens / tokensPerWord);
        if (only(1)) {
            for (const length of [1600, 6000]) {
                const ratios: number[] = [];
                const count = length > 2000 && fullSize ? Math.min(pairs, 2) : pairs;
                for (let pair = 0; pair < count; pair++) {
                    if (pair > 0 && await beginsPlacement(pair, count))
                        await warmUp();
                    const input = `${seed++} ${words(wordsFor(length), seed)}`;
                    const evaluated = await host.engine.countPromptTokens([{role: "user", text: input}]);
                    const [served, directMs] = await alternating(pair,
                        () => streamOnce({model: "m", input, max_output_tokens: 1, temperature: 0, store: false}),
                        () => direct.timeToFirstToken(0, evaluated));
                    ratios.push(directMs / served.ms);
                    log(
                        `cold ${served.input} tokens (${served.cached} cached): served ${served.ms.toFixed(0)} ms, `
                            + `direct ${directMs.toFixed(0)} ms`
                    );
                }
                rows.push([
                    `1b. cold prompt, ~${length} tokens, in one process with the server's plan: direct / served`, median(ratios).toFixed(3),
                    `${spread(ratios)}; target ≥ 0.95`
                ]);
            }
        }

        // 2. Streamed generation rate, greedy, the same length on both paths.
        if (only(2)) {
            const body = {model: "m", input: words(20, 5), max_output_tokens: fullSize ? 200 : 400, temperature: 0, store: false};
            // Greedy: every served run writes the same answer, which may end before the limit (stories260K's does, at about
            // 210 tokens). Direct runs generate as many tokens after a prompt of as many tokens, so both paths pay the same
            // start and the same depths (a 400-token direct run against a 210-token answer would weigh the stream's first
            // token half as much on the direct side).
            const probe = await streamOnce(body);
            const rates: number[] = [];
            const chatRates: number[] = [];
            const completionRates: number[] = [];
            const pollingRates: number[] = [];
            // Pairs of this figure are cheap (seconds) and noisy (runs of 10 pairs on the synthetic model differ by ±0.04):
            // 12 at least.
            const streamPairs = Number(args.pairs ?? Math.max(pairs, 12));
            for (let pair = 0; pair < streamPairs; pair++) {
                // A placement's first pair only warms it up.
                if (await beginsPlacement(pair, streamPairs))
                    await alternating(pair, () => streamOnce(body), () => direct.generationRate(1, probe.tokens, probe.input));
                const [served, directRate] = await alternating(pair,
                    () => streamOnce(body),
                    () => direct.generationRate(1, probe.tokens, probe.input));
                const servedRate = (served.tokens - 1) / (served.streamMs / 1000);
                const chatRate = await direct.apiRate("chat", body.input, probe.tokens);
                const completionRate = await direct.apiRate("completion", body.input, probe.tokens);
                const pollingRate = await direct.generationRate(1, probe.tokens, probe.input, true);
                rates.push(servedRate / directRate);
                pollingRates.push(servedRate / pollingRate);
                chatRates.push(chatRate / directRate);
                completionRates.push(completionRate / directRate);
                log(
                    `generation: served ${servedRate.toFixed(0)} tok/s (${served.tokens} tokens), direct ${directRate.toFixed(0)} tok/s `
                        + `(${pollingRate.toFixed(0)} polling), LlamaCompletion ${completionRate.toFixed(0)} tok/s, `
                        + `LlamaChat ${chatRate.toFixed(0)} tok/s`
                );
            }
            rows.push([
                "2. streamed generation: served / direct tokens/s", median(rates).toFixed(3),
                `${spread(rates)}; target ≥ ${fullSize ? "0.97" : "0.95"}`
            ]);
            rows.push([
                "   served / direct with the event loop polling, as the server's does", median(pollingRates).toFixed(3),
                `${spread(pollingRates)}; what serving costs`
            ]);
            rows.push([
                "   node-llama-cpp's LlamaCompletion (a plain-text answer) / direct", median(completionRates).toFixed(3),
                `${spread(completionRates)}; node-llama-cpp's own share`
            ]);
            rows.push([
                "   node-llama-cpp's LlamaChat (tools, JSON, thoughts) / direct", median(chatRates).toFixed(3),
                `${spread(chatRates)}; node-llama-cpp's own share`
            ]);
        }

        // 3. Aggregate throughput, and the engine's own rate for 4 sequences decoded together.
        if (only(3)) {
            const aggregateLength = fullSize ? 100 : 300;
            const aggregate: Record<number, number> = {};
            for (const clients of [1, 4, 8]) {
                const samples: number[] = [];
                for (let round = 0; round < 2; round++) {
                    const started = performance.now();
                    const results = await stream(Array.from({length: clients}, (_, index) => ({
                        model: "m", input: `${index} ${words(20, index)}`, max_output_tokens: aggregateLength, temperature: 0.8,
                        seed: index, store: false
                    })));
                    samples.push(results.reduce((sum, result) => sum + result.tokens, 0) / ((performance.now() - started) / 1000));
                }
                aggregate[clients] = median(samples);
            }
            const engineFour = median([await direct.generationRate(4, aggregateLength), await direct.generationRate(4, aggregateLength)]);
            rows.push([
                "3. aggregate tokens/s, 1 / 4 / 8 clients",
                `${aggregate[1]!.toFixed(0)} / ${aggregate[4]!.toFixed(0)} / ${aggregate[8]!.toFixed(0)}`,
                `direct, 4 sequences decoding together: ${engineFour.toFixed(0)}`
            ]);
            // The served figure includes each client's cold prompt; the paired direct run does the same work (same prompt
            // and answer lengths, 4 sequences at once), so the ratio is the server's cost alone.
            const fourRatios: number[] = [];
            const fourClients = () => Array.from({length: 4}, (_, index) => ({
                model: "m", input: `${seed++} ${words(20, index)}`, max_output_tokens: aggregateLength, temperature: 0.8, seed: index,
                store: false
            }));
            for (let pair = 0; pair < pairs; pair++) {
                // A new placement's first requests make each sequence's generators: a warm-up, on both sides.
                if (pair > 0 && await beginsPlacement(pair, pairs))
                    await direct.sameJob(await stream(fourClients()));
                const bodies = fourClients();
                const started = performance.now();
                const results = await stream(bodies);
                const served = results.reduce((sum, result) => sum + result.tokens, 0) / ((performance.now() - started) / 1000);
                const directRate = await direct.sameJob(results);
                fourRatios.push(served / directRate);
                log(`4 clients: served ${served.toFixed(0)} tok/s, direct on the same prompts and lengths ${directRate.toFixed(0)} tok/s`);
            }
            rows.push([
                "   4 clients served / the same work on 4 sequences direct", median(fourRatios).toFixed(3),
                `${spread(fourRatios)}; target ≥ 0.95`
            ]);
            rows.push([
                "   4 clients served / 4 sequences decoding direct (no prompts)", (aggregate[4]! / engineFour).toFixed(3),
                "the engine's decode ceiling"
            ]);
        }

        // 4. A 10-turn chain: turn 10 evaluates only its new tokens.
        if (only(4)) {
            const chainRatios: number[] = [];
            const floorRatios: number[] = [];
            for (let chain = 0; chain < (fullSize ? 3 : 5); chain++) {
                let previous: string | undefined;
                const ttft: number[] = [];
                const shapes: Array<{input: number, cached: number}> = [];
                for (let turn = 1; turn <= 10; turn++) {
                    const result = await streamOnce({
                        model: "m", input: turn === 1 ? `Chain ${seed++}: ${words(40, chain)}` : `What happened next, part ${turn}?`,
                        max_output_tokens: 30, temperature: 0, ...(previous != null ? {previous_response_id: previous} : {})
                    });
                    previous = result.id;
                    shapes.push({input: result.input, cached: result.cached});
                    // No text delta (the synthetic model may open with a non-text token): the whole request, one token long.
                    ttft.push(result.ttftMs > 0 ? result.ttftMs : result.ms);
                    if (turn === 1 || turn === 10)
                        log(
                            `chain ${chain} turn ${turn}: ${result.input} tokens, ${result.cached} cached, first token `
                                + `after ${ttft.at(-1)!.toFixed(0)} ms`
                        );
                }
                chainRatios.push(ttft[9]! / ttft[0]!);
                // The engine's own floor: the same token counts evaluated at the same depths, nothing of ours around them.
                const [first, tenth] = [shapes[0]!, shapes[9]!];
                floorRatios.push(
                    await direct.timeToFirstToken(tenth.cached, tenth.input - tenth.cached) / await direct.timeToFirstToken(first.cached,
                        first.input - first.cached)
                );
            }
            rows.push([
                "4. chain: time to first token, turn 10 / turn 1", median(chainRatios).toFixed(3), `${spread(chainRatios)}; target ≤ 1.2`
            ]);
            rows.push(["   direct, same tokens at the same depths: turn 10 / turn 1", median(floorRatios).toFixed(3), spread(floorRatios)]);
        }

        // 5. Warm prefix: ~1,500 shared tokens cached by a first request, then one that adds a new question.
        if (only(5)) {
            const warmRatios: number[] = [];
            for (let pair = 0; pair < pairs; pair++) {
                const shared = `${seed++} ${words(wordsFor(1500), seed)}`;
                await streamOnce({
                    model: "m", instructions: shared, input: "First question?", max_output_tokens: 1, temperature: 0, store: false
                });
                const served = await streamOnce({
                    model: "m", instructions: shared, input: `Second question, number ${pair}: ${words(wordsFor(40), pair)}?`,
                    max_output_tokens: 1, temperature: 0, store: false
                });
                const directMs = await direct.timeToFirstToken(served.cached, served.input - served.cached);
                warmRatios.push(served.ms / directMs);
                log(
                    `warm: ${served.cached} of ${served.input} cached, served ${served.ms.toFixed(0)} ms, direct ${directMs.toFixed(0)} ms`
                );
            }
            rows.push([
                "5. warm prefix: served / direct time to first token", median(warmRatios).toFixed(3), `${spread(warmRatios)}; target ≤ 1.2`
            ]);
        }
    } finally {
        client.stop();
        await direct.close();
        await host.dispose();
        fs.rmSync(storage.dataDir, {recursive: true, force: true});
    }
    return rows;
}

async function main(): Promise<void> {
    const output: string[] = [];
    // Figures 1b–5 load the model in this process; figure 6 alone needs none of that.
    const models = [1, 2, 3, 4, 5].some(only) ? args.models!.split(",") : [];
    for (const name of models) {
        const model = await benchModel(name);
        const rows = [...await depthRows(model), ...await compare(name, model.path, model.fullSize)];
        const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
        output.push(`\n${name}: ${model.label} (threads 1, ${parallel} sequences, context ${contextSize})`);
        output.push(...rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join("  |  ")));
        console.log(output.slice(-rows.length - 1).join("\n"));
    }
    if (only(6)) {
        const model = await benchModel(args["restart-model"]!);
        const rows = await agentRestartRows(model, (line) => console.error(`[restart] ${line}`));
        output.push(`\nAgents across a restart: ${model.label} (the server's default threads, 1 sequence of 32k)`);
        output.push(...rows.map((row) => row.join("  |  ")));
        console.log(output.slice(-rows.length - 1).join("\n"));
    }
    console.log(`\nLocal Responses vs node-llama-cpp (${new Date().toISOString().slice(0, 16)} UTC, ${os.availableParallelism()} cores)`
        + output.join("\n"));
}

/** Figure 1 (bench/depthFigure.ts): each side in a process of its own, before this process loads the model. */
async function depthRows(model: BenchModel): Promise<string[][]> {
    if (!only(1))
        return [];
    return coldPromptAtDepth(model, {
        depths: args.depths!.split(",").map(Number), pairs: Number(args.pairs ?? (model.fullSize ? 4 : 6)),
        placements: Number(args.placements), contextSize,
        directBatches: args["direct-batches"]!.split(",").map(Number), log: (line) => console.error(`[${model.name}] ${line}`)
    });
}

main().catch((error) => {
    console.error(error);
    process.exit(1);
});
