/**
 * npm run bench — serving figures from one run, on the shared stories260K model (threads 1):
 *  1. tokens/s of a streamed response through the HTTP server vs the same generation called directly on the engine;
 *  2. aggregate tokens/s with 1, 4 and 8 concurrent streaming clients;
 *  3. time to first token of turn 1 vs turn 10 of a previous_response_id chain (prefix reuse).
 */
import {defaultConfig} from "../src/host/config.js";
import {LocalResponsesHost} from "../src/host/LocalResponsesHost.js";
import {itemsToTurns} from "../src/responses/transcript.js";
import {normalizeInput} from "../src/responses/inputItems.js";
import {spawn, type ChildProcess} from "node:child_process";
import {fileURLToPath} from "node:url";
import {models} from "../test/helpers/paths.js";

type StreamResult = {tokens: number, input: number, cached: number, ms: number, ttftMs: number, id: string};

const apiKey = "sk-bench";
const prompt = "Tell me a long story about a little dog who found a ball.";
const maxTokens = 400;

function median(values: number[]): number {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
}

/** Runs streaming requests concurrently from the client process (see sseClient.mjs). */
let client: ChildProcess;
function stream(_url: string, bodies: Record<string, unknown>[]): Promise<StreamResult[]> {
    return new Promise((resolve, reject) => {
        client.once("message", (message: {results?: StreamResult[], error?: string}) => {
            if (message.error != null)
                reject(new Error(message.error));
            else
                resolve(message.results!);
        });
        client.send({bodies});
    });
}

const streamOnce = async (url: string, body: Record<string, unknown>) => (await stream(url, [body]))[0]!;

async function main() {
    const config = {...defaultConfig(), port: 0, threads: 1, contextSize: 2048, parallel: 4, apiKeys: [apiKey]};
    const host = new LocalResponsesHost(config);
    await host.loadModel(models.chatml);
    const url = await host.start();
    // `nice`: on 2 cores the client's own parsing would otherwise compete with the server for the CPU it measures.
    client = spawn("nice", ["-n", "19", process.execPath, fileURLToPath(new URL("./sseClient.mjs", import.meta.url)), url, apiKey], {stdio: ["ignore", "inherit", "inherit", "ipc"]});
    await stream(url, [{model: "m", input: "warm up", max_output_tokens: 4, store: false}]);
    const rows: string[][] = [];

    // 1. Serving overhead: identical greedy generations, alternating direct and HTTP, median of 15 (this VM is noisy).
    const turns = itemsToTurns(normalizeInput(prompt));
    const direct: number[] = [];
    const served: number[] = [];
    for (let run = 0; run < 16; run++) {
        const started = performance.now();
        const result = await host.engine.generate({turns, maxOutputTokens: maxTokens, sampling: {temperature: 0}, onEvent: () => undefined});
        const directRate = result.usage.outputTokens / ((performance.now() - started) / 1000);
        const http = await streamOnce(url, {model: "m", input: prompt, max_output_tokens: maxTokens, temperature: 0, store: false});
        if (run === 0)
            continue; // warm-up
        direct.push(directRate);
        served.push(http.tokens / (http.ms / 1000));
    }
    const overhead = median(served) / median(direct);
    rows.push(["streamed via HTTP vs direct engine", `${median(served).toFixed(0)} vs ${median(direct).toFixed(0)} tok/s`, `ratio ${overhead.toFixed(3)} (target ≥ 0.95)`]);

    // 2. Aggregate throughput with concurrent streaming clients (4 sequences; 8 clients queue 4).
    const aggregate: Record<number, number> = {};
    for (const clients of [1, 4, 8]) {
        const started = performance.now();
        const results = await stream(url, Array.from({length: clients}, (_value, index) => ({
            model: "m", input: `${prompt} Story number ${index}.`, max_output_tokens: 300, temperature: 0.8, seed: index, store: false
        })));
        const tokens = results.reduce((sum, result) => sum + result.tokens, 0);
        aggregate[clients] = tokens / ((performance.now() - started) / 1000);
        rows.push([`aggregate, ${clients} concurrent client${clients > 1 ? "s" : ""}`, `${aggregate[clients]!.toFixed(0)} tok/s`, `${tokens} tokens`]);
    }
    rows.push(["scaling 4 clients / 1 client", `${(aggregate[4]! / aggregate[1]!).toFixed(2)}×`, ""]);

    // 3. Time to first token along previous_response_id chains (median of three chains, each opened with a prompt
    //    no sequence holds yet, so turn 1 evaluates its whole prompt and turn 10 only its new tokens).
    const chains: {ttft: number[], cached: number, input: number}[] = [];
    for (let chain = 0; chain < 3; chain++) {
        const ttft: number[] = [];
        let previous: string | undefined;
        let last: StreamResult | undefined;
        for (let turn = 1; turn <= 10; turn++) {
            const result = await streamOnce(url, {
                model: "m", input: turn === 1 ? `Chain ${chain}: ${prompt}` : `What happened next, part ${turn}?`, max_output_tokens: 60, temperature: 0.8,
                ...(previous != null ? {previous_response_id: previous} : {})
            });
            previous = result.id;
            ttft.push(result.ttftMs);
            last = result;
        }
        chains.push({ttft, cached: last!.cached, input: last!.input});
    }
    const ttft = Array.from({length: 10}, (_value, turn) => median(chains.map((chain) => chain.ttft[turn]!)));
    rows.push(["time to first token, chain turn 1 vs turn 10", `${ttft[0]!.toFixed(1)} ms vs ${ttft[9]!.toFixed(1)} ms`, `ratio ${(ttft[9]! / ttft[0]!).toFixed(2)} (target ≤ 1.5)`]);
    rows.push(["turn 10 prompt: input / cached tokens", `${median(chains.map((chain) => chain.input))} / ${median(chains.map((chain) => chain.cached))}`, ""]);

    client.kill();
    await host.dispose();
    const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
    console.log("\nLocal Responses serving benchmark (stories260K, threads 1, 4 sequences)\n");
    for (const row of rows)
        console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join("  |  "));
    console.log(`\nTTFT per turn (ms): ${ttft.map((value) => value.toFixed(1)).join(", ")}`);
}

main().catch((error) => {
    console.error(error);
    process.exit(1);
});
