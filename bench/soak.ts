/**
 * npm run soak -- [--clients 8] [--minutes 5] [--models 2] — mixed clients against a real server for a given time, printing
 * every --interval-secs (30): requests by kind, unexpected errors, the server's RSS and heap used, the store's
 * occupancy. The server (bench/soakServer.ts: stories260K, one thread) runs in a process of its own with a small
 * store entry cap (--store-max-entries, 64) so that eviction happens; the run stops by itself. --models 2 or 3 serves
 * a model library of the shared stories260K models instead, each request naming one of them at random, at most
 * --max-loaded of them loaded (default: all); with fewer loaded than served, models load and unload all along.
 *
 * Client kinds, in turn: streaming; background + polling; previous_response_id chains (then retrieve and
 * input_items); conversations; background + cancel; streams cut mid-way; WebSocket chains (store: false); Chat
 * Completions; logprobs with alternatives; streams read slowly (a pause after every chunk).
 * Expected refusals (503 overload, 429 limits, 404 for a response the store evicted) are counted apart;
 * anything else is unexpected.
 *
 * --chaos (with --models 2 or 3; bench/SoakChaos.ts): the operator's key and the machine misbehave beside the clients,
 * every --chaos-pause-secs (3): unloads and loads with every keep_alive racing requests, a user's key trying to unload,
 * a model process killed or stopped past the server's silence limit, crafted GGUF files in the models folder. Requests
 * whose model the chaos ended count as expected; each action's own check that fails is unexpected. The run fails when
 * a model process outlives the server.
 *
 * Memory investigation: --gc samples the heap after a full GC (server gets --expose-gc); --heap-snapshots DIR
 * writes V8 heap snapshots after the warm-up and at the end and prints which object kinds grew;
 * --malloc-arena-max N runs the server with MALLOC_ARENA_MAX=N (glibc).
 */
import fs from "node:fs";
import path from "node:path";
import {parseArgs} from "node:util";
import {heapGrowth, summarizeHeapSnapshot} from "./heapSnapshotSummary.js";
import {SoakChaos} from "./SoakChaos.js";
import {SoakClient} from "./SoakClient.js";
import {SoakServerProcess} from "./SoakServerProcess.js";
import {soakModelFiles} from "./soakModels.js";
import type {MemorySample} from "./soakServer.js";
import {SoakStats} from "./SoakStats.js";

const {values: flags} = parseArgs({options: {
    clients: {type: "string", default: "8"},
    minutes: {type: "string", default: "5"},
    "interval-secs": {type: "string", default: "30"},
    "store-max-entries": {type: "string", default: "64"},
    "max-output-tokens": {type: "string", default: "24"},
    "think-ms": {type: "string", default: "50"},
    gc: {type: "boolean", default: false},
    "heap-snapshots": {type: "string"},
    "malloc-arena-max": {type: "string"},
    models: {type: "string", default: "1"},
    "max-loaded": {type: "string"},
    chaos: {type: "boolean", default: false},
    "chaos-pause-secs": {type: "string", default: "3"}
}});
const clients = positiveInteger("clients");
const minutes = Number(flags.minutes);
const intervalMs = positiveInteger("interval-secs") * 1000;
const storeMaxEntries = positiveInteger("store-max-entries");
const maxOutputTokens = positiveInteger("max-output-tokens");
const thinkMs = Number(flags["think-ms"]);
const modelCount = positiveInteger("models");
const maxLoaded = flags["max-loaded"] == null ? modelCount : positiveInteger("max-loaded");
const modelIds = soakModelFiles.slice(0, modelCount).map((file) => path.basename(file, ".gguf"));
const chaos = flags.chaos;
if (!(minutes > 0) || !(thinkMs >= 0) || modelCount > soakModelFiles.length || (chaos && modelCount < 2)) {
    process.stderr.write(
        "usage: npm run soak -- [--clients N] [--minutes M] [--interval-secs S] [--store-max-entries N] [--gc] [--heap-snapshots DIR] "
            + "[--malloc-arena-max N] [--models 1-3] [--max-loaded N] [--chaos (with --models 2 or 3)] [--chaos-pause-secs S]\n"
    );
    process.exit(2);
}

function positiveInteger(name: keyof typeof flags): number {
    const value = Number(flags[name]);
    if (!Number.isInteger(value) || value < 1) {
        process.stderr.write(`--${name} must be a positive integer\n`);
        process.exit(2);
    }
    return value;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

const stats = new SoakStats();

async function main(): Promise<number> {
    const apiKeys = Array.from({length: clients}, (_, index) => `sk-soak-${index}`);
    const adminKey = "sk-soak-operator";
    const server = await SoakServerProcess.start(
        {apiKeys, adminApiKeys: chaos ? [adminKey] : [], storeMaxEntries, conversationsMaxEntries: 32, parallel: 4, models: modelCount,
            maxLoaded},
        {gc: flags.gc, mallocArenaMax: flags["malloc-arena-max"]});
    const started = Date.now();
    const until = started + minutes * 60_000;
    const served = modelCount < 2 ? "stories260K"
        : `a library of ${modelIds.join(", ")} (each request names one at random; at most ${maxLoaded} loaded)`;
    const arenas = flags["malloc-arena-max"] == null ? "" : `, MALLOC_ARENA_MAX=${flags["malloc-arena-max"]}`;
    process.stdout.write(
        `soak: ${clients} clients for ${minutes} min against ${server.origin} (server pid ${server.child.pid}; ${served}, 1 thread, `
            + `store cap ${storeMaxEntries} entries${flags.gc ? ", heap sampled after a full GC" : ""}${arenas})\n`
    );
    const first = await server.sample();
    const idle = modelCount < 2 ? "model loaded" : "no model loaded yet";
    process.stdout.write(`[    0 s] RSS ${mb(first.rss)} MB, heap used ${mb(first.heapUsed)} MB (idle, ${idle})\n`);

    const timeline: Array<{seconds: number, sample: MemorySample}> = [];
    let lastTotal = 0;
    const report = async () => {
        const sample = await server.sample();
        const seconds = Math.round((Date.now() - started) / 1000);
        timeline.push({seconds, sample});
        const status = await fetch(`${server.origin}/v1/status`, {headers: {authorization: `Bearer ${apiKeys[0]}`}})
            .then((res) => res.json() as Promise<any>).catch(() => null);
        const total = stats.total;
        const byKind = [...stats.requests].map(([kind, count]) => `${kind} ${count}`).join(", ");
        const refusals = [...stats.expected].map(([reason, count]) => `${reason}: ${count}`).join(", ") || "none";
        process.stdout.write(`[${String(seconds).padStart(5)} s] requests ${total} (+${total - lastTotal}): ${byKind}\n`
            + `          unexpected errors ${stats.unexpected}; expected refusals: ${refusals}\n`
            + `          RSS ${mb(sample.rss)} MB${rssParts(server.child.pid!, sample)}, heap used ${mb(sample.heapUsed)} / `
            + `total ${mb(sample.heapTotal)} MB, external ${mb(sample.external)} MB`
            + (status == null ? ""
                : `; store ${status.responses.entries}/${status.responses.max_entries} entries, ${status.responses.evictions} evicted; `
                    + `conversations ${status.conversations.entries}`
                    + (status.models == null ? "" : `; models loaded: ${loadedModels(status.models.data)}`
                        + childCount(server.child.pid!))) + "\n");
        lastTotal = total;
    };
    const ticker = setInterval(() => void report(), intervalMs);

    let baselineSnapshot: string | undefined;
    const snapshotDir = flags["heap-snapshots"];
    const warmUpMs = Math.min(120_000, minutes * 60_000 / 4);
    const takeWarmUpSnapshot = async (directory: string) => {
        const snapshotPath = path.join(directory, `soak-${process.pid}-warm.heapsnapshot`);
        baselineSnapshot = (await server.request<{path: string}>({type: "snapshot", path: snapshotPath})).path;
        process.stdout.write(`          heap snapshot after warm-up: ${baselineSnapshot}\n`);
    };
    const warmUpSnapshot = snapshotDir == null ? undefined : setTimeout(() => void takeWarmUpSnapshot(snapshotDir), warmUpMs);

    const hardStop = setTimeout(() => {
        process.stdout.write("soak: clients did not finish 3 minutes after the end; stopping the server\n");
        server.child.kill("SIGKILL");
        process.exit(1);
    }, minutes * 60_000 + 180_000);
    const clientOptions = {maxOutputTokens, thinkMs, models: modelIds, chaos};
    const chaosAgent = !chaos ? undefined : new SoakChaos({
        origin: server.origin, adminKey, userKey: apiKeys[0]!, modelsDir: server.modelsDir!, models: modelIds, stats,
        pauseMs: Number(flags["chaos-pause-secs"]) * 1000
    });
    await Promise.all([
        ...apiKeys.map((key, index) => new SoakClient(server.origin, key, index, stats, clientOptions).run(until)),
        chaosAgent?.run(until)
    ]);
    clearInterval(ticker);
    clearTimeout(warmUpSnapshot);
    await report();

    if (snapshotDir != null && baselineSnapshot != null) {
        const final = (await server.request<{path: string}>({type: "snapshot",
            path: path.join(snapshotDir, `soak-${process.pid}-end.heapsnapshot`)})).path;
        process.stdout.write(`heap snapshot at the end: ${final}\nobject kinds that grew most (self bytes), warm-up → end:\n`);
        for (const line of heapGrowth(summarizeHeapSnapshot(baselineSnapshot), summarizeHeapSnapshot(final)))
            process.stdout.write(`  ${line}\n`);
    }
    const serverPid = server.child.pid!;
    const modelProcesses = childPids(serverPid);
    await server.stop();
    clearTimeout(hardStop);
    // Every model process ends with the server (each exits when its channel closes): none is left behind.
    const leftDeadline = Date.now() + 10_000;
    while (modelProcesses.some(isRunning) && Date.now() < leftDeadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
    const leftBehind = modelProcesses.filter(isRunning);

    const afterWarmUp = timeline.filter((entry) => entry.seconds * 1000 >= warmUpMs);
    const rss = afterWarmUp.map((entry) => entry.sample.rss);
    const heap = afterWarmUp.map((entry) => entry.sample.heapUsed);
    process.stdout.write(
        `\nsoak done: ${stats.total} requests in ${((Date.now() - started) / 60_000).toFixed(1)} `
            + `min, ${stats.unexpected} unexpected errors\n`
    );
    if (rss.length >= 2)
        process.stdout.write(
            `after warm-up (${Math.round(warmUpMs / 1000)} s): RSS ${mb(rss[0]!)} → ${mb(rss.at(-1)!)} MB (min ${mb(Math.min(...rss))}, `
                + `max ${mb(Math.max(...rss))}, slope ${slopePerMinute(afterWarmUp.map((entry) => [entry.seconds, entry.sample.rss]))} `
                + `MB/min); heap used ${mb(heap[0]!)} → ${mb(heap.at(-1)!)} MB `
                + `(slope ${slopePerMinute(afterWarmUp.map((entry) => [entry.seconds, entry.sample.heapUsed]))} MB/min)\n`
        );
    if (chaosAgent != null)
        process.stdout.write(`${chaosAgent.summary()}\n`);
    process.stdout.write(`model processes running at the end: ${modelProcesses.length}; left after the server stopped: `
        + `${leftBehind.length === 0 ? "none" : leftBehind.join(", ")}\n`);
    for (const [message, count] of stats.unexpectedMessages)
        process.stdout.write(`  unexpected ${count}×: ${message}\n`);
    return stats.unexpected === 0 && leftBehind.length === 0 ? 0 : 1;
}

/**
 * Linux: how much of the RSS is anonymous memory (malloc, V8) and how much file pages (code, the model file), and
 * the anonymous memory outside V8's heap (llama.cpp, glibc malloc arenas, buffers) as anonymous − heap total.
 */
function rssParts(pid: number, sample: MemorySample): string {
    try {
        const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
        const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
        const anonymous = kb("RssAnon") * 1024;
        return ` (anonymous ${mb(anonymous)} of which outside the JS heap ${mb(anonymous - sample.heapTotal)}, `
            + `file ${mb(kb("RssFile") * 1024)})`;
    } catch {
        return "";
    }
}

/** The library's loaded models as `/v1/status` lists them, each with its own process's resident memory when it has one. */
function loadedModels(models: Array<{id: string, status: string, rss_bytes?: number}>): string {
    return models.filter((model) => model.status === "loaded")
        .map((model) => model.rss_bytes == null ? model.id : `${model.id} (its process ${mb(model.rss_bytes)} MB)`).join(", ") || "none";
}

/**
 * Processes the server has started and that still run (model processes and their spare) and its open descriptors
 * (Linux), to see that none leaks.
 */
function childCount(pid: number): string {
    try {
        return `; child processes ${childPids(pid).length}, open descriptors ${fs.readdirSync(`/proc/${pid}/fd`).length}`;
    } catch {
        return "";
    }
}

function childPids(pid: number): number[] {
    try {
        const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
        return children === "" ? [] : children.split(/\s+/).map(Number);
    } catch {
        return [];
    }
}

function isRunning(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

/** Least-squares slope of (seconds, bytes) points, in MB per minute. */
function slopePerMinute(points: Array<[number, number]>): string {
    const n = points.length;
    const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
    const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
    const num = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0);
    const den = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
    return den === 0 ? "0" : (num / den * 60 / 1024 / 1024).toFixed(2);
}

main().then((code) => process.exit(code), (error: unknown) => {
    process.stderr.write(`soak: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
});
