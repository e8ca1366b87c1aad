/**
 * npm run bench:llama-server — this server's local engine against llama.cpp's own C++ server on the same model file,
 * both answering `/v1/responses` streams, each in its own process, alternating pairs:
 *  - streamed tokens/s, measured over the deltas both answers have (greedy, same prompt: the same tokens; llama-server
 *    runs with `--ignore-eos`, so its answer is never the shorter one);
 *  - time to first token (on the synthetic model a cold ~2,300-token prompt, a new one for every pair).
 * On the synthetic models (random weights, so random text) llama-server's OpenAI endpoints fail some streams after a
 * few tokens: its output parser refuses the text ("does not match the expected … format"). Those pairs still give a
 * time to first token (the prompt was evaluated and a token streamed) but no stream rate; the bench counts them and
 * prints the first failure, and says so where a figure could not be taken at all.
 * Both generate with 1 thread and evaluate prompts with every core (this server's defaults; llama-server `-t 1 -tb N`),
 * with the same flash attention setting (off, this server's default, unless `--flash-attention`).
 * node-llama-cpp called directly is the baseline of `npm run bench`; this is the baseline a user would compare with.
 *
 * llama-server is built as llama.cpp's releases are (`--llama-build release`, the default: every CPU variant, the best
 * loaded at run time, as node-llama-cpp's prebuilt build does) and the bench prints which CPU variant each side loaded;
 * `--llama-build portable` is the tests' static AVX2 build. With LLAMA_CPU_VARIANT=<name> in the environment (e.g. the
 * variant this server loads, which the bench prints), the release build carries that one variant (a third of the compile).
 * Usage: npm run bench:llama-server [-- --model stories260K|smollm2-135m|…] [--pairs N] [--warmup N] [--max-tokens N] [--flash-attention]
 *   [--llama-build release|portable]
 *   --model: a name of bench/benchModels.ts, the real-vocabulary shapes included (smollm2-135m-qwen2, qwen2.5-0.5b-qwen2,
 *   smollm2-135m-gemma4), generated on first use.
 * Needs llama-server (scripts/build-llama-server.sh, through the test helper); builds dist/ first.
 */
import os from "node:os";
import {parseArgs} from "node:util";
import {startLlamaServer, type LlamaServerBuild} from "../test/helpers/llamaServer.js";
import {benchModel} from "./benchModels.js";
import {startCliServer} from "./cliServer.js";
import {loadedCpuVariants} from "./cpuVariants.js";
import {alternating, median, quantile} from "./pairs.js";
import {sseData} from "./sseData.js";

const {values: args} = parseArgs({options: {
    model: {type: "string", default: "stories260K"},
    pairs: {type: "string"},
    "max-tokens": {type: "string"},
    warmup: {type: "string"},
    "flash-attention": {type: "boolean", default: false},
    "llama-build": {type: "string", default: "release"}
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

/** A streamed answer: when its first delta came (null: none came), when each delta arrived, and why it failed if it did. */
type Stream = {ttftMs: number | null, deltaTimes: number[], failure: string | null};

/**
 * One streamed answer: when each delta arrived (text or reasoning: a Gemma 4 template may open a thought, on either
 * side). Both servers' events are parsed alike. A failed stream resolves, with what it had and why it failed, so that
 * one refused answer of llama-server's does not cost the pair its time to first token.
 */
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
        return {ttftMs: null, deltaTimes: [], failure: `HTTP ${response.status} ${(await response.text()).slice(0, 200)}`};
    const deltaTimes: number[] = [];
    let failure: string | null = null;
    type Event = {type?: string, message?: string, error?: {message?: string}, response?: {error?: {message?: string}}};
    try {
        for await (const event of sseData(response.body) as AsyncGenerator<Event>) {
            if (event.type?.endsWith(".delta") === true)
                deltaTimes.push(performance.now());
            else if (event.type === "error" || event.type === "response.failed" || (event.type == null && event.error != null))
                failure ??= event.error?.message ?? event.message ?? event.response?.error?.message ?? JSON.stringify(event).slice(0, 200);
        }
    } catch (error) {
        failure ??= String(error);
    }
    failure ??= deltaTimes.length === 0 ? "no delta" : null;
    return {ttftMs: deltaTimes.length === 0 ? null : deltaTimes[0]! - started, deltaTimes, failure};
}

/** Deltas a second over the first `count` deltas. */
const rateOver = (run: Stream, count: number) => (count - 1) / ((run.deltaTimes[count - 1]! - run.deltaTimes[0]!) / 1000);

/** This server on the model, its own process, with the engine settings of llama-server's command line. */
async function startThisServer(model: string): Promise<{base: string, pid: number, stop: () => void}> {
    const server = await startCliServer(["--model", model, "--no-auth", "--store", "memory", "--parallel", "1",
        "--context-size", String(contextSize), "--threads", "1", "--prompt-threads", String(promptThreads),
        ...(flashAttention ? ["--flash-attention"] : [])]);
    return {base: server.url.replace(/\/v1\/?$/, ""), pid: server.child.pid!, stop: server.stop};
}

async function main(): Promise<void> {
    const {path: model, label} = await benchModel(args.model!);
    const llamaServer = await startLlamaServer({
        model, slots: 1, ignoreEos: true, contextPerSlot: contextSize, build: args["llama-build"] as LlamaServerBuild,
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
        // After a request each: both have loaded their kernels.
        console.log(`CPU variant: llama-server (${args["llama-build"]} build) ${loadedCpuVariants(llamaServer.pid).join(", ")}; ` +
            `this server (node-llama-cpp's prebuilt) ${loadedCpuVariants(ours.pid).join(", ")}`);
        const rate: number[] = [];
        const ttft: number[] = [];
        /** Why pairs gave no stream rate or no time to first token: reason → pairs, and each side's first failure. */
        const missed = {rate: new Map<string, number>(), ttft: new Map<string, number>()};
        const failures = new Map<string, string>();
        const miss = (figure: Map<string, number>, reason: string) => figure.set(reason, (figure.get(reason) ?? 0) + 1);
        for (let pair = 0; pair < pairs; pair++) {
            const [a, b] = await alternating(pair, () => stream(llamaServer.url, prompt), () => stream(ours.base, prompt));
            prompt++;
            for (const [side, run] of [["llama-server", a], ["this server", b]] as const)
                if (run.failure != null && !failures.has(side))
                    failures.set(side, run.failure);
            if (a.ttftMs != null && b.ttftMs != null)
                ttft.push(a.ttftMs / b.ttftMs);
            else
                miss(missed.ttft, `${a.ttftMs == null ? "llama-server" : "this server"} streamed nothing`);
            // The synthetic model's noise can reach an end of turn within a few tokens, or llama-server's parser can refuse it
            // a few tokens in: too few deltas to time a stream by.
            const common = Math.min(a.deltaTimes.length, b.deltaTimes.length);
            const [theirRate, ourRate] = common >= minStreamDeltas ? [rateOver(a, common), rateOver(b, common)] : [null, null];
            if (theirRate != null && ourRate != null)
                rate.push(ourRate / theirRate);
            else
                miss(missed.rate, a.failure != null && a.deltaTimes.length < minStreamDeltas
                    ? "llama-server's stream failed within 16 deltas" : `fewer than ${minStreamDeltas} deltas in common`);
            const shown = (tokensPerSecond: number | null) => tokensPerSecond == null ? "" : `${tokensPerSecond.toFixed(0)} tok/s, `;
            const first = (run: Stream) => run.ttftMs == null ? "no first token" : `first token ${run.ttftMs.toFixed(1)} ms`;
            const failed = (run: Stream) => run.failure == null ? "" : ` [failed after ${run.deltaTimes.length} deltas]`;
            console.log(`llama-server ${shown(theirRate)}${first(a)}${failed(a)} | this server ${shown(ourRate)}${first(b)}${failed(b)} `
                + `(${common} deltas in common)`);
        }
        const spread = (values: number[]) => `median ${median(values).toFixed(3)} `
            + `(quartiles ${quantile(values, 0.25).toFixed(3)}–${quantile(values, 0.75).toFixed(3)}, ${values.length} pairs)`;
        const untaken = (figure: Map<string, number>) => [...figure].map(([reason, count]) => `${count} of ${pairs}: ${reason}`).join("; ");
        const figure = (values: number[], figureMissed: Map<string, number>) => (values.length > 0 ? spread(values) : "not taken")
            + (figureMissed.size > 0 ? ` [pairs without it: ${untaken(figureMissed)}]` : "");
        console.log(`${args.model} (${label}), ${new Date().toISOString().slice(0, 10)}, flash attention ${flashAttention ? "on" : "off"} `
            + `on both, context ${contextSize}:`);
        console.log(`${args.model}: streamed tokens/s, this server / llama-server: ${figure(rate, missed.rate)}`);
        console.log(`${args.model}: time to first token, llama-server / this server: ${figure(ttft, missed.ttft)} `
            + "(higher is better for this server)");
        for (const [side, failure] of failures)
            console.log(`${args.model}: ${side}'s first failed stream: ${failure}`);
        if (failures.has("llama-server") && fullSize)
            console.log("llama-server's OpenAI endpoints refuse some of a synthetic model's random text (its output parser): its streams "
                + "end there, so a stream rate is taken only where both sides streamed 16 deltas; prompt evaluation, the time to first "
                + "token, does not depend on the text and holds.");
    } finally {
        ours.stop();
        await llamaServer.stop();
    }
}

main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
});
