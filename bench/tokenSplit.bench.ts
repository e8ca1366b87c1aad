/**
 * npm run bench:token-split — where one generated token's time goes: node-llama-cpp's raw greedy loop (what the server
 * streams at, `npm run bench` figure 2) against llama.cpp's own server on the same file, at the same depth, one thread,
 * alternating pairs. The node-llama-cpp side is split into its native decode call, its native sampling call and the
 * rest (its JavaScript evaluate loop and the two thread-pool round trips a token makes); llama-server's side is its own
 * per-token time (`timings.predicted_per_token_ms` of `/completion`: decode and sampling, no HTTP), so the figure
 * compares the engines, not the two servers' streaming.
 * With `--perf` (Linux `perf`, perf_event_paranoid ≤ 2) each side's first generation is sampled from its first token
 * (the prompt's evaluation left out) and the native symbols above 0.3 % are printed, the two one after the other: the
 * same kernels at the same shares mean the decode is the same, and what is left is each side's per-token path.
 *
 * Usage: npm run bench:token-split [-- --model smollm2-135m-gemma4] [--depth 1250] [--tokens 150] [--pairs 3] [--perf]
 * Needs llama-server (scripts/build-llama-server.sh, through the test helper).
 */
import {type ChildProcess, spawn, spawnSync} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {parseArgs} from "node:util";
import type {LlamaContext, LlamaModel, Token} from "node-llama-cpp";
import {loadNodeLlamaCpp} from "../src/engine/models/loadBinding.js";
import {startLlamaServer} from "../test/helpers/llamaServer.js";
import {benchModel} from "./benchModels.js";
import {words} from "./filler.js";
import {alternating, median, quantile} from "./pairs.js";
import {sseData} from "./sseData.js";

const {values: args} = parseArgs({options: {
    model: {type: "string", default: "smollm2-135m-gemma4"},
    depth: {type: "string", default: "1250"},
    tokens: {type: "string", default: "150"},
    pairs: {type: "string", default: "3"},
    perf: {type: "boolean", default: false}
}});
const contextSize = 4096;
const tokens = Number(args.tokens);
const spread = (values: readonly number[]) => `${quantile(values, 0.25).toFixed(3)}–${quantile(values, 0.75).toFixed(3)}`;

/** Milliseconds a generated token spends in each part of node-llama-cpp's loop (averaged over the tokens after the first). */
type DirectSplit = {total: number, decode: number, sample: number};

/**
 * node-llama-cpp alone: one sequence, batch 128 and one thread as the server runs it. Its native context (`_ctx`, a
 * private field) is wrapped so that each decode and each sampling call is timed from the call to the resolution of its
 * promise, thread-pool hops included: node-llama-cpp has no public hook between the two.
 */
class DirectLoop {
    private readonly spent = {decode: 0, sample: 0};

    private constructor(private readonly model: LlamaModel, private readonly context: LlamaContext) {
        const native = (context as unknown as {_ctx: Record<string, unknown>})._ctx;
        const timed = (method: string, part: keyof DirectLoop["spent"]) => async (...callArgs: unknown[]) => {
            const started = performance.now();
            try {
                return await (native[method] as (...a: unknown[]) => Promise<unknown>).apply(native, callArgs);
            } finally {
                this.spent[part] += performance.now() - started;
            }
        };
        const wrappers: Record<string, unknown> = {
            decodeBatch: timed("decodeBatch", "decode"), sampleToken: timed("sampleToken", "sample")
        };
        const get = (target: Record<string, unknown>, key: string) => {
            const value = target[key];
            return wrappers[key] ?? (typeof value === "function" ? value.bind(target) : value);
        };
        // The native object's methods are read-only properties: a proxy in the field is the one place to time them.
        (context as unknown as {_ctx: unknown})._ctx = new Proxy(native, {get});
    }

    static async open(modelPath: string): Promise<DirectLoop> {
        const {getLlama} = await loadNodeLlamaCpp();
        const llama = await getLlama({gpu: false, build: "never", maxThreads: 1});
        const model = await llama.loadModel({modelPath});
        const context = await model.createContext({contextSize, sequences: 1, batchSize: 128, threads: 1, flashAttention: false});
        return new DirectLoop(model, context);
    }

    tokenize(text: string): Token[] {
        return this.model.tokenize(text);
    }

    /** Greedy tokens after `prompt`, `count` of them, from a fresh sequence (nothing cached); `onFirstToken` when the first comes. */
    async generate(prompt: Token[], count: number, onFirstToken: () => void): Promise<DirectSplit> {
        const sequence = this.context.getSequence();
        let first = 0;
        let generated = 0;
        try {
            for await (const _token of sequence.evaluate(prompt, {temperature: 0, yieldEogToken: true})) {
                if (first === 0) {
                    onFirstToken();
                    first = performance.now();
                    this.spent.decode = this.spent.sample = 0;
                }
                if (++generated >= count)
                    break;
            }
        } finally {
            await sequence.dispose();
        }
        const per = (ms: number) => ms / (generated - 1);
        return {total: per(performance.now() - first), decode: per(this.spent.decode), sample: per(this.spent.sample)};
    }

    async close(): Promise<void> {
        await this.context.dispose();
        await this.model.dispose();
    }
}

/**
 * llama-server's own milliseconds a generated token for the same prompt and count (greedy, `--ignore-eos`), read from
 * the last event of a `/completion` stream; `onFirstToken` when its first token comes.
 */
async function llamaServerTokenMs(base: string, prompt: string, count: number, onFirstToken: () => void): Promise<number> {
    const response = await fetch(`${base}/completion`, {
        method: "POST",
        headers: {"content-type": "application/json"},
        body: JSON.stringify({prompt, n_predict: count, temperature: 0, cache_prompt: false, stream: true})
    });
    if (!response.ok || response.body == null)
        throw new Error(`llama-server /completion: HTTP ${response.status} ${await response.text()}`);
    type Event = {timings?: {predicted_per_token_ms: number, predicted_n: number}};
    let timings: Event["timings"];
    let first = true;
    for await (const event of sseData(response.body) as AsyncGenerator<Event>) {
        if (first)
            onFirstToken();
        first = false;
        timings = event.timings ?? timings;
    }
    if (timings == null || timings.predicted_n < count)
        throw new Error(`llama-server generated ${timings?.predicted_n ?? 0} of ${count} tokens`);
    return timings.predicted_per_token_ms;
}

/**
 * Runs `work`, sampling process `pid` with perf from the first generated token to the end when `enabled` (the first
 * pair only), then prints the native symbols above 0.3 % of the samples. A missing perf or a refused attach is said
 * and not fatal.
 */
async function profiled<T>(label: string, pid: number, enabled: boolean, work: (onFirstToken: () => void) => Promise<T>): Promise<T> {
    if (!enabled)
        return work(() => undefined);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "lr-perf-")), "perf.data");
    let recorder: ChildProcess | undefined;
    let recorded: Promise<unknown> = Promise.resolve();
    const result = await work(() => {
        recorder = spawn("perf", ["record", "-F", "999", "-g", "-p", String(pid), "-o", file], {stdio: "ignore"});
        // A perf that cannot start reports an error and may never close: either ends the recording.
        recorded = new Promise((resolve) => {
            recorder!.once("close", resolve);
            recorder!.once("error", (error) => resolve(console.log(`${label}: perf not started (${error.message})`)));
        });
    });
    recorder?.kill("SIGINT");
    await recorded;
    const reportArgs = ["report", "-i", file, "--no-children", "--sort", "dso,sym", "--stdio", "-g", "none"];
    const report = spawnSync("perf", reportArgs, {encoding: "utf8"});
    const rows = (report.stdout ?? "").split("\n").filter((line) => /^\s+\d+\.\d+%/.test(line) && Number.parseFloat(line) >= 0.3);
    const shown = rows.join("\n") || `  no samples (${report.stderr?.trim()})`;
    console.log(`${label}, perf over its tokens (native symbols ≥ 0.3 % of samples):\n${shown}`);
    return result;
}

async function main(): Promise<void> {
    const {path: model, label} = await benchModel(args.model!);
    const direct = await DirectLoop.open(model);
    const llamaServer = await startLlamaServer({
        model, slots: 1, contextPerSlot: contextSize, ignoreEos: true, extraArgs: ["-b", "128", "-fa", "off"], build: "release"
    });
    const ratios: number[] = [];
    const splits: DirectSplit[] = [];
    const theirs: number[] = [];
    try {
        for (let pair = 0; pair < Number(args.pairs); pair++) {
            const profile = args.perf && pair === 0;
            // A new prompt for every pair, so that neither side holds it; the same text on both sides (the same tokens).
            const text = words(Number(args.depth), pair + 1);
            const prompt = direct.tokenize(text);
            const [split, llamaServerMs] = await alternating(pair,
                () => profiled("node-llama-cpp", process.pid, profile, (onFirst) => direct.generate(prompt, tokens, onFirst)),
                () => profiled("llama-server", llamaServer.pid, profile,
                    (onFirst) => llamaServerTokenMs(llamaServer.url, text, tokens, onFirst)));
            splits.push(split);
            theirs.push(llamaServerMs);
            ratios.push(llamaServerMs / split.total);
            console.log(`pair ${pair + 1}: ${prompt.length}-token prompt; llama-server ${llamaServerMs.toFixed(2)} ms/token | `
                + `node-llama-cpp ${split.total.toFixed(2)} (decode ${split.decode.toFixed(2)}, sample ${split.sample.toFixed(2)}, `
                + `loop ${(split.total - split.decode - split.sample).toFixed(2)})`);
        }
    } finally {
        await llamaServer.stop();
        await direct.close();
    }
    const part = (pick: (split: DirectSplit) => number) => median(splits.map(pick)).toFixed(2);
    console.log(`${args.model} (${label}), ${new Date().toISOString().slice(0, 10)}, ${os.cpus()[0]?.model ?? "cpu"}, `
        + `depth ~${args.depth} tokens, ${tokens} greedy tokens, 1 thread, ${args.pairs} pairs`);
    console.log(`tokens/s, node-llama-cpp / llama-server: ${median(ratios).toFixed(3)} (${spread(ratios)})`);
    console.log(`ms/token (medians): llama-server ${median(theirs).toFixed(2)}; node-llama-cpp ${part((s) => s.total)} = decode `
        + `${part((s) => s.decode)} + sample ${part((s) => s.sample)} + loop ${part((s) => s.total - s.decode - s.sample)}`);
}

main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
});
