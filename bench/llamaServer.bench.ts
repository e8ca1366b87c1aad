/**
 * npm run bench:llama-server — this server's local engine against llama.cpp's own C++ server on the same model file,
 * both answering `/v1/responses` streams, each in its own process, alternating pairs:
 *  - streamed tokens/s, measured over the deltas both answers have (greedy, same prompt: the same tokens; llama-server
 *    runs with `--ignore-eos`, so its answer is never the shorter one);
 *  - time to first token (on the synthetic model a cold ~2,300-token prompt, a new one for every pair).
 * Both generate with 1 thread and evaluate prompts with every core (this server's defaults; llama-server `-t 1 -tb N`),
 * with the same flash attention setting (off, this server's default, unless `--flash-attention`).
 * node-llama-cpp called directly is the baseline of `npm run bench`; this is the baseline a user would compare with.
 *
 * Usage: npm run bench:llama-server [-- --model stories260K|smollm2-135m] [--pairs N] [--warmup N] [--max-tokens N] [--flash-attention]
 * Needs llama-server (scripts/build-llama-server.sh, through the test helper); builds dist/ first.
 */
import os from "node:os";
import {parseArgs} from "node:util";
import {startLlamaServer} from "../test/helpers/llamaServer.js";
import {models} from "../test/helpers/paths.js";
import {syntheticModel} from "../test/helpers/syntheticModel.js";
import {startCliServer} from "./cliServer.js";
import {alternating, median, quantile} from "./pairs.js";
import {sseData} from "./sseData.js";

const {values: args} = parseArgs({options: {
    model: {type: "string", default: "stories260K"},
    pairs: {type: "string"},
    "max-tokens": {type: "string"},
    warmup: {type: "string"},
    "flash-attention": {type: "boolean", default: false}
}});
const fullSize = args.model !== "stories260K";
const pairs = Number(args.pairs ?? (fullSize ? 6 : 60));
/** Requests each server answers before the pairs: a fresh Node process streams 30–50 % slower until its code is optimised. */
const warmup = Number(args.warmup ?? (fullSize ? 1 : 20));
const maxTokens = Number(args["max-tokens"] ?? (fullSize ? 100 : 400));
const contextSize = 4096;
const promptThreads = Math.max(1, os.availableParallelism());
/**
 * Flash attention on both sides or on neither. llama-server's default (`-fa auto`) turns it on wherever the backend
 * has it, the CPU included; this server's default is off (docs/api.md, "Settings and what they cost"). Compared at
 * their own defaults, llama-server's cold prompts are faster (~2,300 tokens of the synthetic model: 11.0–11.2 s against
 * 12.8–14.3 s with it off) and its tokens deep in a context slower, for that setting alone.
 */
const flashAttention = args["flash-attention"];
const words = ["the", "little", "dog", "ran", "to", "park", "and", "found", "a", "red", "ball"];
/** stories260K: a story. The full-size model: a ~2,300-token prompt, different for every pair (nothing cached on either side). */
const promptFor = (index: number) => fullSize
    ? `${index} ${Array.from({length: 1300}, (_, word) => words[(word * 7 + index) % 11]).join(" ")}`
    : "Tell me a long story about a little dog who found a ball.";

/** Fewer deltas than this in common and a pair's stream rate is not counted (its time to first token still is). */
const minStreamDeltas = 16;

type Stream = {ttftMs: number, deltaTimes: number[]};

/** One streamed answer: when each text delta arrived. Both servers' events are parsed alike. */
async function stream(base: string, index: number): Promise<Stream> {
    const started = performance.now();
    const response = await fetch(`${base}/v1/responses`, {
        method: "POST",
        headers: {"content-type": "application/json"},
        body: JSON.stringify({
            model: "m", input: promptFor(index), max_output_tokens: maxTokens, temperature: 0, stream: true, store: false
        })
    });
    if (!response.ok || response.body == null)
        throw new Error(`${base}: HTTP ${response.status} ${await response.text()}`);
    const deltaTimes: number[] = [];
    for await (const event of sseData(response.body)) {
        if ((event as {type?: string}).type === "response.output_text.delta")
            deltaTimes.push(performance.now());
    }
    if (deltaTimes.length === 0)
        throw new Error(`${base}: no text delta`);
    return {ttftMs: deltaTimes[0]! - started, deltaTimes};
}

/** Deltas a second over the first `count` deltas. */
const rateOver = (run: Stream, count: number) => (count - 1) / ((run.deltaTimes[count - 1]! - run.deltaTimes[0]!) / 1000);

/** This server on the model, its own process, with the engine settings of llama-server's command line. */
async function startThisServer(model: string): Promise<{base: string, stop: () => void}> {
    const server = await startCliServer(["--model", model, "--no-auth", "--port", "0", "--store", "memory", "--parallel", "1",
        "--context-size", String(contextSize), "--threads", "1", "--prompt-threads", String(promptThreads),
        ...(flashAttention ? ["--flash-attention"] : [])]);
    return {base: server.url.replace(/\/v1\/?$/, ""), stop: server.stop};
}

async function main(): Promise<void> {
    const model = fullSize ? await syntheticModel(args.model as "smollm2-135m") : models.chatml;
    const llamaServer = await startLlamaServer({
        model, slots: 1, ignoreEos: true, contextPerSlot: contextSize,
        extraArgs: ["-tb", String(promptThreads), "-fa", flashAttention ? "on" : "off"]
    });
    const ours = await startThisServer(model).catch(async (error: unknown) => {
        await llamaServer.stop();
        throw error;
    });
    try {
        // Both servers answer the same prompt in a pair (the same tokens to compare), one neither has seen before.
        let prompt = 0;
        for (; prompt < warmup; prompt++) {
            await stream(llamaServer.url, prompt);
            await stream(ours.base, prompt);
        }
        const rate: number[] = [];
        const ttft: number[] = [];
        for (let pair = 0; pair < pairs; pair++) {
            const [a, b] = await alternating(pair, () => stream(llamaServer.url, prompt), () => stream(ours.base, prompt));
            prompt++;
            ttft.push(a.ttftMs / b.ttftMs);
            // The synthetic model's noise can reach an end of turn within a few tokens: too few to time a stream by.
            const common = Math.min(a.deltaTimes.length, b.deltaTimes.length);
            const [theirRate, ourRate] = common >= minStreamDeltas ? [rateOver(a, common), rateOver(b, common)] : [null, null];
            if (theirRate != null && ourRate != null)
                rate.push(ourRate / theirRate);
            const shown = (tokensPerSecond: number | null) => tokensPerSecond == null ? "" : `${tokensPerSecond.toFixed(0)} tok/s, `;
            console.log(`llama-server ${shown(theirRate)}first token ${a.ttftMs.toFixed(1)} ms | this server ${shown(ourRate)}first `
                + `token ${b.ttftMs.toFixed(1)} ms `
                + `(${common} deltas in common)`);
        }
        const spread = (values: number[]) => `median ${median(values).toFixed(3)} `
            + `(quartiles ${quantile(values, 0.25).toFixed(3)}–${quantile(values, 0.75).toFixed(3)}, ${values.length} pairs)`;
        console.log(`${args.model}, flash attention ${flashAttention ? "on" : "off"} on both:`);
        console.log(
            `${args.model}: streamed tokens/s, this server / `
                + `llama-server: ${rate.length > 0 ? spread(rate) : "no pair streamed long enough"}`
        );
        console.log(`${args.model}: time to first token, llama-server / this server: ${spread(ttft)} (higher is better for this server)`);
    } finally {
        ours.stop();
        await llamaServer.stop();
    }
}

main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
});
