/**
 * npm run bench:serving — serving figures from one run, on the shared stories260K model (threads 1, 4 sequences):
 *  1. tokens/s of a streamed response through the HTTP server vs the same generation called directly on the engine,
 *     with its parts: the steady streaming rate, the fixed cost of a request, and the server's own generation rate
 *     while the client reads nothing (what is left when the client's CPU does not compete on 2 cores);
 *  2. aggregate tokens/s with 1, 4 and 8 concurrent streaming clients;
 *  3. time to first token of turn 1 vs turn 10 of a previous_response_id chain (prefix reuse), at the client and
 *     inside the engine, with the prompt tokens each turn really evaluated, and the floor: llama.cpp evaluating
 *     the same numbers of tokens after the same cached prefixes, with nothing of ours around it.
 *
 * This VM's speed drifts by ±15 % from one generation to the next, so figure 1 is the median of paired ratios
 * (a direct and a served generation back to back, their order alternating) after a warm-up, with its quartiles.
 */
import {defaultConfig} from "../src/host/config.js";
import {LocalResponsesHost} from "../src/host/LocalResponsesHost.js";
import {itemsToTurns} from "../src/responses/transcript.js";
import {normalizeInput} from "../src/responses/inputItems.js";
import {backendDefaults} from "../src/engine/engineDefaults.js";
import {loadNodeLlamaCpp} from "../src/engine/models/loadBinding.js";
import {models} from "../test/helpers/paths.js";
import {alternating, median, quantile} from "./pairs.js";
import {SseClientProcess} from "./sseClientProcess.js";

const apiKey = "sk-bench";
const prompt = "Tell me a long story about a little dog who found a ball.";
const maxTokens = 400;
const warmUpPairs = 8;
const measuredPairs = 30;
const chainCount = 7;

const spread = (values: readonly number[],
    digits: number) => `quartiles ${quantile(values, 0.25).toFixed(digits)}–${quantile(values, 0.75).toFixed(digits)}`;

/** Runs streaming requests concurrently from the client process. */
let client: SseClientProcess;
const stream = (bodies: Record<string, unknown>[], hold = false) => client.stream(bodies, hold);
const streamOnce = (body: Record<string, unknown>, hold = false) => client.streamOnce(body, hold);

async function main() {
    const config = {...defaultConfig(), port: 0, threads: 1, promptThreads: 1, contextSize: 2048, parallel: 4, apiKeys: [apiKey]};
    const host = new LocalResponsesHost(config);
    await host.loadModel(models.chatml);
    const url = await host.start();
    /** The engine's own figures for the last generation (server side). */
    let lastGeneration = {durationMs: 0, timeToFirstTokenMs: 0};
    /** A held response is in flight: the client may read it once its generation has ended. */
    let releaseHeld = false;
    host.engine.onGeneration((summary) => {
        lastGeneration = {durationMs: summary.durationMs, timeToFirstTokenMs: summary.timeToFirstTokenMs ?? 0};
        if (releaseHeld) {
            releaseHeld = false;
            client.resume();
        }
    });
    // `nice`: on 2 cores the client's own parsing would otherwise compete with the server for the CPU it measures.
    client = SseClientProcess.start(url, apiKey);
    const rows: string[][] = [];

    // 1. Serving overhead: identical greedy generations, direct and through HTTP, in back-to-back pairs.
    const turns = itemsToTurns(normalizeInput(prompt));
    const direct = async () => {
        const started = performance.now();
        const result = await host.engine.generate({
            turns, maxOutputTokens: maxTokens, sampling: {temperature: 0}, onEvent: () => undefined
        });
        const ms = performance.now() - started;
        return {
            tokens: result.usage.outputTokens, ms, generationMs: lastGeneration.durationMs,
            decodeMs: lastGeneration.durationMs - lastGeneration.timeToFirstTokenMs
        };
    };
    const body = {model: "m", input: prompt, max_output_tokens: maxTokens, temperature: 0, store: false};
    const served = () => streamOnce(body);
    /** Served with the client reading nothing until the generation has ended, timed in the engine. */
    const servedUnread = async () => {
        releaseHeld = true;
        const result = await streamOnce(body, true);
        return {tokens: result.tokens, generationMs: lastGeneration.durationMs};
    };
    const whole: number[] = [];
    const steady: number[] = [];
    const fixedMs: number[] = [];
    const serverSide: number[] = [];
    let tokens = 0;
    for (let pair = 0; pair < warmUpPairs + measuredPairs; pair++) {
        const [d, s] = await alternating(pair, direct, served);
        if (pair < warmUpPairs)
            continue;
        tokens = s.tokens;
        whole.push((s.tokens / s.ms) / (d.tokens / d.ms));
        // Both from the first token to the last: the client's first-to-last delta vs the engine's decode span.
        steady.push(((s.tokens - 1) / s.streamMs) / ((d.tokens - 1) / d.decodeMs));
        fixedMs.push((s.ms - s.streamMs) - (d.ms - d.decodeMs));
    }
    // The server's own pace with no client competing for the CPU.
    for (let pair = 0; pair < measuredPairs / 2; pair++) {
        const [d, unread] = await alternating(pair, direct, servedUnread);
        serverSide.push((unread.tokens / unread.generationMs) / (d.tokens / d.generationMs));
    }
    rows.push([
        "streamed via HTTP vs direct engine, whole request", `ratio ${median(whole).toFixed(3)}`, `${spread(whole, 3)}; target ≥ 0.95`
    ]);
    rows.push(["  steady streaming rate (first to last token)", `ratio ${median(steady).toFixed(3)}`, spread(steady, 3)]);
    rows.push([
        "  fixed cost of an HTTP request over a direct call", `${median(fixedMs).toFixed(1)} ms`,
        `${spread(fixedMs, 1)}; ${tokens}-token answers`
    ]);
    rows.push(["  server-side generation rate, client not reading", `ratio ${median(serverSide).toFixed(3)}`, spread(serverSide, 3)]);

    // 2. Aggregate throughput with concurrent streaming clients (4 sequences; 8 clients queue 4). Median of 3.
    const aggregate: Record<number, number> = {};
    for (const clients of [1, 4, 8]) {
        const rates: number[] = [];
        let total = 0;
        for (let round = 0; round < 3; round++) {
            const started = performance.now();
            const results = await stream(Array.from({length: clients}, (_value, index) => ({
                model: "m", input: `${prompt} Story number ${index}.`, max_output_tokens: 300, temperature: 0.8, seed: index + round * 8,
                store: false
            })));
            total = results.reduce((sum, result) => sum + result.tokens, 0);
            rates.push(total / ((performance.now() - started) / 1000));
        }
        aggregate[clients] = median(rates);
        rows.push([
            `aggregate, ${clients} concurrent client${clients > 1 ? "s" : ""}`, `${aggregate[clients]!.toFixed(0)} tok/s`,
            `${total} tokens a round, median of 3`
        ]);
    }
    rows.push(["scaling 4 clients / 1 client", `${(aggregate[4]! / aggregate[1]!).toFixed(2)}×`, ""]);

    // 3. Time to first token along previous_response_id chains, each opened with a prompt no sequence holds yet:
    //    turn 1 evaluates its whole prompt, turn 10 only its new tokens after 9 cached turns.
    type Turn = {client: number, engine: number, serving: number, evaluated: number, input: number};
    const chains: Turn[][] = [];
    for (let chain = 0; chain < chainCount; chain++) {
        const chainTurns: Turn[] = [];
        let previous: string | undefined;
        for (let turn = 1; turn <= 10; turn++) {
            const result = await streamOnce({
                model: "m", input: turn === 1 ? `Chain ${chain}: ${prompt}` : `What happened next, part ${turn}?`, max_output_tokens: 60,
                temperature: 0.8,
                ...(previous != null ? {previous_response_id: previous} : {})
            });
            previous = result.id;
            const engine = lastGeneration.timeToFirstTokenMs;
            chainTurns.push({
                client: result.ttftMs, engine, serving: result.ttftMs - engine, evaluated: result.input - result.cached, input: result.input
            });
        }
        chains.push(chainTurns);
    }
    const at = (turn: number, field: keyof Turn) => median(chains.map((chainTurns) => chainTurns[turn - 1]![field]));
    const ttft = Array.from({length: 10}, (_value, index) => at(index + 1, "client"));
    rows.push([
        "time to first token, chain turn 1 vs turn 10", `${at(1, "client").toFixed(1)} ms vs ${at(10, "client").toFixed(1)} ms`,
        `ratio ${(at(10, "client") / at(1, "client")).toFixed(2)} (target ≤ 1.5)`
    ]);
    rows.push([
        "  of which in the engine (prompt evaluation)", `${at(1, "engine").toFixed(1)} ms vs ${at(10, "engine").toFixed(1)} ms`,
        `ratio ${(at(10, "engine") / at(1, "engine")).toFixed(2)}`
    ]);
    rows.push([
        "  of which serving (HTTP, history, events)", `${at(1, "serving").toFixed(1)} ms vs ${at(10, "serving").toFixed(1)} ms`, ""
    ]);
    rows.push([
        "  prompt tokens evaluated / prompt tokens",
        `${at(1, "evaluated")} / ${at(1, "input")} vs ${at(10, "evaluated")} / ${at(10, "input")}`, `median of ${chainCount} chains`
    ]);

    const floor = await promptEvaluationFloor([
        {cached: at(1, "input") - at(1, "evaluated"), evaluated: at(1, "evaluated")},
        {cached: at(10, "input") - at(10, "evaluated"), evaluated: at(10, "evaluated")}
    ]);
    rows.push([
        "  floor: llama.cpp alone, same tokens after same prefix", `${floor[0]!.toFixed(1)} ms vs ${floor[1]!.toFixed(1)} ms`,
        `ratio ${(floor[1]! / floor[0]!).toFixed(2)}`
    ]);

    client.stop();
    await host.dispose();
    const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
    console.log("\nLocal Responses serving benchmark (stories260K, threads 1, 4 sequences)\n");
    for (const row of rows)
        console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join("  |  "));
    console.log(`\nTTFT per turn at the client (ms): ${ttft.map((value) => value.toFixed(1)).join(", ")}`);
}

/**
 * Median time node-llama-cpp takes to evaluate `evaluated` tokens on a sequence already holding `cached` ones, with
 * the server's context settings: what any server on this model must spend before its first token.
 */
async function promptEvaluationFloor(cases: {cached: number, evaluated: number}[]): Promise<number[]> {
    const {getLlama} = await loadNodeLlamaCpp();
    const llama = await getLlama({gpu: false, build: "never", maxThreads: 1});
    const model = await llama.loadModel({modelPath: models.chatml});
    const context = await model.createContext({
        contextSize: 2048, sequences: 4, threads: 1, batchSize: backendDefaults("cpu").batchSize, flashAttention: false
    });
    const sequence = context.getSequence();
    const text = model.tokenize("Once upon a time, there was a little girl named Lily. She loved to play outside in the park. ".repeat(40));
    const times = cases.map(() => [] as number[]);
    for (let round = 0; round < 11; round++) {
        for (const [index, {cached, evaluated}] of cases.entries()) {
            await sequence.clearHistory();
            if (cached > 0)
                await sequence.evaluateWithoutGeneratingNewTokens(text.slice(0, cached));
            const started = performance.now();
            await sequence.evaluateWithoutGeneratingNewTokens(text.slice(cached, cached + evaluated));
            times[index]!.push(performance.now() - started);
        }
    }
    await context.dispose();
    await model.dispose();
    return times.map((values) => median(values));
}

main().catch((error) => {
    console.error(error);
    process.exit(1);
});
