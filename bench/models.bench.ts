/**
 * npm run bench:models — what a model library costs, against what a user would otherwise run, in one run:
 *  1. time to first token of a request naming a model that is not loaded (load + prompt), against node-llama-cpp alone
 *     in a process of its own loading the same model and evaluating as many tokens (alternating pairs);
 *  2. switching: a request to model A while requests alternate between A and B (both loaded), against A alone (target
 *     ≤ 5 % slower);
 *  3. memory: the resident memory two loaded models add to a server process, against the sum of what each adds alone.
 * The models are the synthetic SmolLM2-135M body (a real size and cost, noise for text) and the two-layer body with
 * Qwen2's tokenizer, in one --models-dir; the server is the headless CLI (`npm run build` first), one process per figure.
 *
 * With `--model-isolation process` (the default) each model is a process of its own: memory counts the server's process
 * tree, and a cold request includes starting the model's process; `--isolation shared` measures the models in the server.
 *
 * Usage: npm run bench:models [-- --pairs N] [--threads T] [--tokens N] [--isolation process|shared]
 */
import {execFile, type ChildProcess} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {parseArgs, promisify} from "node:util";
import {backendDefaults} from "../src/engine/engineDefaults.js";
import {repoRoot} from "../test/helpers/paths.js";
import {syntheticModel} from "../test/helpers/syntheticModel.js";
import {startCliServer, type CliServer} from "./cliServer.js";
import {words} from "./filler.js";
import {alternating, median, quantile} from "./pairs.js";

const {values: args} = parseArgs({
    options: {
        pairs: {type: "string", default: "4"}, threads: {type: "string", default: "2"}, tokens: {type: "string", default: "450"},
        isolation: {type: "string", default: "process"}
    }
});
const contextSize = 4096;
const threads = Number(args.threads);

/** The server on a models folder, as the figures need it. */
function startServer(folder: string): Promise<CliServer> {
    return startCliServer(["--no-auth", "--store", "memory", "--models-dir", folder, "--max-loaded-models", "2",
        "--threads", String(threads), "--prompt-threads", String(threads), "--context-size", String(contextSize), "--parallel", "1",
        "--model-isolation", args.isolation]);
}

async function post(server: CliServer, route: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${server.url}${route}`, {
        method: "POST", headers: {"content-type": "application/json"}, body: body === undefined ? undefined : JSON.stringify(body)
    });
    if (!response.ok)
        throw new Error(`${route}: ${response.status} ${await response.text()}`);
    return response.json();
}

/** Milliseconds to a one-token answer (streamed, to its terminal event), and its prompt's tokens. */
async function firstToken(server: CliServer, model: string, input: string): Promise<{ms: number, tokens: number}> {
    const started = performance.now();
    const response = await fetch(`${server.url}/responses`, {
        method: "POST", headers: {"content-type": "application/json"},
        body: JSON.stringify({model, input, max_output_tokens: 1, temperature: 0, stream: true, store: false})
    });
    const text = await response.text();
    const ms = performance.now() - started;
    const usage = /"input_tokens":(\d+)/.exec(text.slice(text.lastIndexOf("response.")));
    if (usage == null)
        throw new Error(`no usage: ${text.slice(-300)}`);
    return {ms, tokens: Number(usage[1])};
}

/** Milliseconds of a whole short answer (the switching figure). */
async function answerMs(server: CliServer, model: string): Promise<number> {
    const started = performance.now();
    await post(server, "/responses", {model, input: "Tell me a story about a dog.", max_output_tokens: 32, temperature: 0, store: false});
    return performance.now() - started;
}

async function directLoad(model: string, tokens: number): Promise<{ms: number, tokens: number, rssBytes: number | null}> {
    const {stdout} = await promisify(execFile)(process.execPath, ["--import", "tsx", path.join(repoRoot, "bench/directLoad.ts"), model,
        String(contextSize), String(backendDefaults("cpu").batchSize), String(threads), String(tokens)], {cwd: repoRoot});
    return JSON.parse(stdout.trim().split("\n").at(-1)!) as {ms: number, tokens: number, rssBytes: number | null};
}

/** Resident memory of the server and every process under it (each library model's own, with `--model-isolation process`). */
function rssBytes(child: ChildProcess): number {
    const tree = (pid: number): number[] => [pid, ...fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/)
        .filter((text) => text !== "").flatMap((text) => tree(Number(text)))];
    return tree(child.pid!).reduce((total, pid) =>
        total + Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024, 0);
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const spread = (values: number[]) => `${quantile(values, 0.25).toFixed(3)}–${quantile(values, 0.75).toFixed(3)}`;

async function main(): Promise<void> {
    const big = await syntheticModel("smollm2-135m");
    const small = await syntheticModel("tiny-64", "qwen2");
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "lr-models-bench-"));
    fs.symlinkSync(big, path.join(folder, "smollm2.gguf"));
    fs.symlinkSync(small, path.join(folder, "tiny-qwen2.gguf"));
    const rows: string[] = [];
    const report = (row: string) => {
        rows.push(row);
        console.error(row);
    };
    const server = await startServer(folder);
    try {
        // Each model's engine starts its native backend on its first load: the cold figure is a model's load, not that.
        for (const model of ["smollm2", "tiny-qwen2"]) {
            await post(server, `/models/${model}/load`);
            await post(server, `/models/${model}/unload`);
        }
        // 1. A request to an unloaded model vs node-llama-cpp's own load + evaluation.
        const ratios: number[] = [];
        // One prompt throughout (nothing of it is kept across an unload: the store is in memory, no prompt cache on
        // disk); node-llama-cpp alone evaluates as many tokens as the served prompt rendered.
        const input = words(Number(args.tokens), 10);
        const {tokens} = await firstToken(server, "smollm2", input);
        for (let pair = 0; pair < Number(args.pairs); pair++) {
            const [served, direct] = await alternating(pair, async () => {
                await post(server, "/models/smollm2/unload");
                return firstToken(server, "smollm2", input);
            }, async () => directLoad(big, tokens));
            ratios.push(direct.ms / served.ms);
            console.error(`  pair ${pair}: served ${served.ms.toFixed(0)} ms (${served.tokens} tokens), alone ${direct.ms.toFixed(0)} ms `
                + `(${direct.tokens} tokens)`);
        }
        report(`request to an unloaded model (load + ${tokens}-token prompt), node-llama-cpp alone / served: `
            + `${median(ratios).toFixed(3)} (IQR ${spread(ratios)}, ${ratios.length} pairs; ≥ 1 would be no cost)`);

        // 2. Switching between two loaded models vs one model alone.
        await post(server, "/models/smollm2/load");
        await post(server, "/models/tiny-qwen2/load");
        await answerMs(server, "smollm2");
        const switching: number[] = [];
        for (let pair = 0; pair < Number(args.pairs) * 2; pair++) {
            const [alone, switched] = await alternating(pair, async () => {
                const times = [await answerMs(server, "smollm2"), await answerMs(server, "smollm2")];
                return median(times);
            }, async () => {
                await answerMs(server, "tiny-qwen2");
                const first = await answerMs(server, "smollm2");
                await answerMs(server, "tiny-qwen2");
                return median([first, await answerMs(server, "smollm2")]);
            });
            switching.push(switched / alone);
        }
        report(`a request to A between requests to B (both loaded) / to A alone: ${median(switching).toFixed(3)} `
            + `(IQR ${spread(switching)}, ${switching.length} pairs; target ≤ 1.05)`);
    } finally {
        server.stop();
    }

    // 3. Memory: what two loaded models add to a server process vs the sum of each alone (one process per figure).
    const added: Record<string, number> = {};
    for (const loaded of [[], ["smollm2"], ["tiny-qwen2"], ["smollm2", "tiny-qwen2"]]) {
        const measured = await startServer(folder);
        try {
            await post(measured, "/models/smollm2/load");
            await post(measured, "/models/smollm2/unload");
            const before = rssBytes(measured.child);
            for (const model of loaded)
                await post(measured, `/models/${model}/load`);
            added[loaded.join("+") || "none"] = rssBytes(measured.child) - before;
        } finally {
            measured.stop();
        }
    }
    const sum = added.smollm2! + added["tiny-qwen2"]!;
    const direct = await directLoad(big, 16);
    report(`memory added by loaded models: smollm2 ${mib(added.smollm2!)}, tiny-qwen2 ${mib(added["tiny-qwen2"]!)}, both `
        + `${mib(added["smollm2+tiny-qwen2"]!)}; both / sum of each: ${(added["smollm2+tiny-qwen2"]! / sum).toFixed(3)} `
        + `(node-llama-cpp alone with smollm2: ${direct.rssBytes == null ? "?" : mib(direct.rssBytes)} resident in all)`);
    fs.rmSync(folder, {recursive: true, force: true});
    console.log(`\nLocal Responses model library benchmark (threads ${threads}, context ${contextSize}, isolation ${args.isolation}, `
        + `${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)})\n${rows.join("\n")}`);
}

main().catch((error) => {
    console.error(error);
    process.exit(1);
});
