/**
 * npm run soak -- [--clients 8] [--minutes 5] — mixed clients against a real server for a given time, printing
 * every --interval-secs (30): requests by kind, unexpected errors, the server's RSS and heap used, the store's
 * occupancy. The server (bench/soakServer.ts: stories260K, one thread) runs in a process of its own with a small
 * store entry cap (--store-max-entries, 64) so that eviction happens; the run stops by itself.
 *
 * Client kinds, in turn: streaming; background + polling; previous_response_id chains (then retrieve and
 * input_items); conversations; background + cancel; streams cut mid-way; WebSocket chains (store: false).
 * Expected refusals (503 overload, 429 limits, 404 for a response the store evicted) are counted apart;
 * anything else is unexpected.
 *
 * Memory investigation: --gc samples the heap after a full GC (server gets --expose-gc); --heap-snapshots DIR
 * writes V8 heap snapshots after the warm-up and at the end and prints which object kinds grew;
 * --malloc-arena-max N runs the server with MALLOC_ARENA_MAX=N (glibc).
 */
import {fork, type ChildProcess} from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {parseArgs} from "node:util";
import WebSocket from "ws";
import {heapGrowth, summarizeHeapSnapshot} from "./heapSnapshotSummary.js";
import type {MemorySample, SoakServerOptions} from "./soakServer.js";

const {values: flags} = parseArgs({options: {
    clients: {type: "string", default: "8"},
    minutes: {type: "string", default: "5"},
    "interval-secs": {type: "string", default: "30"},
    "store-max-entries": {type: "string", default: "64"},
    "max-output-tokens": {type: "string", default: "24"},
    "think-ms": {type: "string", default: "50"},
    gc: {type: "boolean", default: false},
    "heap-snapshots": {type: "string"},
    "malloc-arena-max": {type: "string"}
}});
const clients = positiveInteger("clients");
const minutes = Number(flags.minutes);
const intervalMs = positiveInteger("interval-secs") * 1000;
const storeMaxEntries = positiveInteger("store-max-entries");
const maxOutputTokens = positiveInteger("max-output-tokens");
const thinkMs = Number(flags["think-ms"]);
if (!(minutes > 0) || !(thinkMs >= 0)) {
    process.stderr.write("usage: npm run soak -- [--clients N] [--minutes M] [--interval-secs S] [--store-max-entries N] [--gc] [--heap-snapshots DIR] [--malloc-arena-max N]\n");
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

const kinds = ["stream", "background", "chain", "conversation", "cancel", "disconnect", "websocket"] as const;
type Kind = typeof kinds[number];

/** Counts per kind; unexpected errors keep their first messages. */
class SoakStats {
    public readonly requests = new Map<Kind, number>(kinds.map((kind) => [kind, 0]));
    public readonly expected = new Map<string, number>();
    public unexpected = 0;
    public readonly unexpectedMessages = new Map<string, number>();

    public request(kind: Kind): void {
        this.requests.set(kind, this.requests.get(kind)! + 1);
    }

    public refusal(reason: string): void {
        this.expected.set(reason, (this.expected.get(reason) ?? 0) + 1);
    }

    public fail(kind: Kind, message: string): void {
        this.unexpected++;
        const key = `${kind}: ${message.replace(/\b(resp|conv|msg)_[A-Za-z0-9]+/g, "$1_…").slice(0, 200)}`;
        this.unexpectedMessages.set(key, (this.unexpectedMessages.get(key) ?? 0) + 1);
    }

    public get total(): number {
        return [...this.requests.values()].reduce((sum, count) => sum + count, 0);
    }
}

/** Thrown for an answer the soak expects now and then (overload, limits, eviction): counted, not a failure. */
class ExpectedRefusal extends Error {}

const stats = new SoakStats();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The HTTP calls one client makes, with its own key. */
class SoakClient {
    private readonly headers: Record<string, string>;

    public constructor(private readonly origin: string, private readonly apiKey: string, private readonly index: number) {
        this.headers = {authorization: `Bearer ${apiKey}`, "content-type": "application/json"};
    }

    public async run(until: number): Promise<void> {
        for (let turn = 0; Date.now() < until; turn++) {
            const kind = kinds[(this.index + turn) % kinds.length]!;
            try {
                await this[kind]();
            } catch (error) {
                if (error instanceof ExpectedRefusal)
                    stats.refusal(error.message);
                else
                    stats.fail(kind, (error as Error).message);
            }
            await sleep(thinkMs);
        }
    }

    private body(input: unknown, extra: Record<string, unknown> = {}) {
        return {model: "stories260K", input, max_output_tokens: maxOutputTokens, temperature: 0.8, ...extra};
    }

    /** One HTTP exchange; statuses in `refusals` (with their reason) are expected refusals. */
    private async call(kind: Kind, method: string, url: string, json?: unknown, refusals: Record<number, string> = {}): Promise<any> {
        stats.request(kind);
        const res = await fetch(`${this.origin}${url}`, {method, headers: this.headers, body: json === undefined ? undefined : JSON.stringify(json), signal: AbortSignal.timeout(120_000)});
        const text = await res.text();
        if (res.status === 200)
            return JSON.parse(text);
        const reason = refusals[res.status] ?? (res.status === 503 ? "503 overloaded" : res.status === 429 ? "429 limit" : undefined);
        if (reason != null)
            throw new ExpectedRefusal(reason);
        throw new Error(`${method} ${url.replace(/\/(resp|conv)_[A-Za-z0-9]+/g, "/$1_…")} → ${res.status} ${text.slice(0, 200)}`);
    }

    private async stream(): Promise<void> {
        stats.request("stream");
        const res = await fetch(`${this.origin}/v1/responses`, {method: "POST", headers: this.headers, body: JSON.stringify(this.body("Tell me a story.", {stream: true, store: false})), signal: AbortSignal.timeout(120_000)});
        const text = await res.text();
        if (res.status === 503)
            throw new ExpectedRefusal("503 overloaded");
        if (res.status !== 200)
            throw new Error(`stream → ${res.status} ${text.slice(0, 200)}`);
        if (!/event: response\.(completed|incomplete)\n/.test(text))
            throw new Error(`stream ended without a terminal event: …${text.slice(-300)}`);
    }

    private async background(): Promise<void> {
        let response = await this.call("background", "POST", "/v1/responses", this.body("A background story.", {background: true}));
        const deadline = Date.now() + 120_000;
        while (response.status === "queued" || response.status === "in_progress") {
            if (Date.now() > deadline)
                throw new Error(`background response still ${response.status} after 120 s`);
            await sleep(100);
            response = await this.call("background", "GET", `/v1/responses/${response.id}`);
        }
        if (response.status !== "completed" && response.status !== "incomplete")
            throw new Error(`background response ended ${response.status}: ${JSON.stringify(response.error)}`);
    }

    private async chain(): Promise<void> {
        const evicted = {404: "404 evicted (store at its cap)"};
        let previous: string | undefined;
        for (const input of ["Once upon a time", "What happened next?", "And in the end?"]) {
            const response = await this.call("chain", "POST", "/v1/responses", this.body(input, previous == null ? {} : {previous_response_id: previous}), evicted);
            previous = response.id;
        }
        await this.call("chain", "GET", `/v1/responses/${previous}`, undefined, evicted);
        await this.call("chain", "GET", `/v1/responses/${previous}/input_items?limit=5`, undefined, evicted);
    }

    private async conversation(): Promise<void> {
        const conversation = await this.call("conversation", "POST", "/v1/conversations", {items: [{role: "user", content: "Hello there."}]});
        const evicted = {404: "404 conversation evicted"};
        for (const input of ["Tell me about a cat.", "And a dog?"])
            await this.call("conversation", "POST", "/v1/responses", this.body(input, {conversation: conversation.id}), evicted);
        await this.call("conversation", "GET", `/v1/conversations/${conversation.id}/items?limit=10`, undefined, evicted);
        await this.call("conversation", "DELETE", `/v1/conversations/${conversation.id}`, undefined, evicted);
    }

    private async cancel(): Promise<void> {
        const created = await this.call("cancel", "POST", "/v1/responses", this.body("A story to cancel.", {background: true, max_output_tokens: maxOutputTokens * 4}));
        const cancelled = await this.call("cancel", "POST", `/v1/responses/${created.id}/cancel`);
        if (!["cancelled", "completed", "incomplete"].includes(cancelled.status))
            throw new Error(`cancel answered status ${cancelled.status}`);
        await this.call("cancel", "DELETE", `/v1/responses/${created.id}`);
    }

    private async disconnect(): Promise<void> {
        stats.request("disconnect");
        const controller = new AbortController();
        const res = await fetch(`${this.origin}/v1/responses`, {method: "POST", headers: this.headers, body: JSON.stringify(this.body("A story cut short.", {stream: true, max_output_tokens: maxOutputTokens * 4})), signal: controller.signal});
        if (res.status === 503)
            throw new ExpectedRefusal("503 overloaded");
        if (res.status !== 200)
            throw new Error(`disconnect stream → ${res.status} ${await res.text()}`);
        const reader = res.body!.getReader();
        await reader.read();
        controller.abort();
        await reader.cancel().catch(() => undefined);
    }

    private async websocket(): Promise<void> {
        const ws = new WebSocket(`${this.origin.replace(/^http/, "ws")}/v1/responses`, {headers: {authorization: `Bearer ${this.apiKey}`}});
        const messages: any[] = [];
        let wake: (() => void) | undefined;
        ws.on("message", (data) => {
            messages.push(JSON.parse(data.toString()));
            wake?.();
        });
        ws.on("close", () => wake?.());
        try {
            await new Promise<void>((resolve, reject) => {
                ws.once("open", () => resolve());
                ws.once("error", reject);
            });
            let previous: string | undefined;
            for (const input of ["Once upon a time", "Go on."]) {
                stats.request("websocket");
                ws.send(JSON.stringify({type: "response.create", ...this.body(input, {store: false, ...(previous == null ? {} : {previous_response_id: previous})})}));
                const deadline = Date.now() + 120_000;
                for (;;) {
                    const message = messages.shift();
                    if (message == null) {
                        if (ws.readyState !== WebSocket.OPEN)
                            throw new Error("WebSocket closed mid-turn");
                        if (Date.now() > deadline)
                            throw new Error("WebSocket turn without a terminal event in 120 s");
                        await new Promise<void>((resolve) => {
                            wake = resolve;
                            setTimeout(resolve, 1000);
                        });
                        continue;
                    }
                    if (message.type === "error") {
                        if (message.status === 503 || message.status === 429)
                            throw new ExpectedRefusal(`WebSocket ${message.status}`);
                        throw new Error(`WebSocket error event ${message.status}: ${JSON.stringify(message.error)}`);
                    }
                    if (message.type === "response.failed")
                        throw new Error(`WebSocket response failed: ${JSON.stringify(message.response?.error)}`);
                    if (message.type === "response.completed" || message.type === "response.incomplete") {
                        previous = message.response.id;
                        break;
                    }
                }
            }
        } finally {
            ws.close();
        }
    }
}

/** The server process and its IPC requests. */
class SoakServer {
    private nextId = 1;
    private readonly pending = new Map<number, (message: any) => void>();

    private constructor(public readonly child: ChildProcess, public readonly origin: string) {
        child.on("message", (message: {id?: number}) => {
            if (message.id != null)
                this.pending.get(message.id)?.(message);
        });
    }

    public static start(options: SoakServerOptions): Promise<SoakServer> {
        const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "soakServer.ts");
        const env = {...process.env, ...(flags["malloc-arena-max"] == null ? {} : {MALLOC_ARENA_MAX: flags["malloc-arena-max"]})};
        const child = fork(script, [JSON.stringify(options)], {execArgv: ["--import", "tsx", ...(flags.gc ? ["--expose-gc"] : [])], env, stdio: ["ignore", "inherit", "pipe", "ipc"]});
        child.stderr!.on("data", (chunk: Buffer) => {
            for (const line of chunk.toString().split("\n").filter((entry) => /error|warn/i.test(entry)))
                process.stdout.write(`  ${line.slice(0, 300)}\n`);
        });
        return new Promise((resolve, reject) => {
            child.once("exit", (code) => reject(new Error(`soak server exited with ${code} before it was ready`)));
            child.once("message", (message: {type?: string, url?: string}) => {
                if (message.type === "ready")
                    resolve(new SoakServer(child, message.url!.replace(/\/v1$/, "")));
            });
        });
    }

    public request<T>(message: object, timeoutMs = 120_000): Promise<T> {
        const id = this.nextId++;
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`server did not answer ${JSON.stringify(message)}`)), timeoutMs);
            this.pending.set(id, (answer) => {
                clearTimeout(timer);
                this.pending.delete(id);
                resolve(answer);
            });
            this.child.send({id, ...message});
        });
    }

    public async sample(): Promise<MemorySample> {
        return (await this.request<{sample: MemorySample}>({type: "sample", gc: flags.gc})).sample;
    }

    public async stop(): Promise<void> {
        await this.request({type: "stop"}, 30_000).catch(() => {
            this.child.kill("SIGKILL");
        });
    }
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

async function main(): Promise<number> {
    const apiKeys = Array.from({length: clients}, (_, index) => `sk-soak-${index}`);
    const server = await SoakServer.start({apiKeys, storeMaxEntries, conversationsMaxEntries: 32, parallel: 4});
    const started = Date.now();
    const until = started + minutes * 60_000;
    process.stdout.write(`soak: ${clients} clients for ${minutes} min against ${server.origin} (server pid ${server.child.pid}; stories260K, 1 thread, store cap ${storeMaxEntries} entries${flags.gc ? ", heap sampled after a full GC" : ""}${flags["malloc-arena-max"] == null ? "" : `, MALLOC_ARENA_MAX=${flags["malloc-arena-max"]}`})\n`);
    const first = await server.sample();
    process.stdout.write(`[    0 s] RSS ${mb(first.rss)} MB, heap used ${mb(first.heapUsed)} MB (idle, model loaded)\n`);

    const timeline: Array<{seconds: number, sample: MemorySample}> = [];
    let lastTotal = 0;
    const report = async () => {
        const sample = await server.sample();
        const seconds = Math.round((Date.now() - started) / 1000);
        timeline.push({seconds, sample});
        const status = await fetch(`${server.origin}/v1/status`, {headers: {authorization: `Bearer ${apiKeys[0]}`}}).then((res) => res.json() as Promise<any>).catch(() => null);
        const total = stats.total;
        const byKind = [...stats.requests].map(([kind, count]) => `${kind} ${count}`).join(", ");
        const refusals = [...stats.expected].map(([reason, count]) => `${reason}: ${count}`).join(", ") || "none";
        process.stdout.write(`[${String(seconds).padStart(5)} s] requests ${total} (+${total - lastTotal}): ${byKind}\n`
            + `          unexpected errors ${stats.unexpected}; expected refusals: ${refusals}\n`
            + `          RSS ${mb(sample.rss)} MB${rssParts(server.child.pid!, sample)}, heap used ${mb(sample.heapUsed)} / total ${mb(sample.heapTotal)} MB, external ${mb(sample.external)} MB`
            + (status == null ? "" : `; store ${status.responses.entries}/${status.responses.max_entries} entries, ${status.responses.evictions} evicted; conversations ${status.conversations.entries}`) + "\n");
        lastTotal = total;
    };
    const ticker = setInterval(() => void report(), intervalMs);

    let baselineSnapshot: string | undefined;
    const snapshotDir = flags["heap-snapshots"];
    const warmUpMs = Math.min(120_000, minutes * 60_000 / 4);
    const warmUpSnapshot = snapshotDir == null ? undefined : setTimeout(async () => {
        baselineSnapshot = (await server.request<{path: string}>({type: "snapshot", path: path.join(snapshotDir, `soak-${process.pid}-warm.heapsnapshot`)})).path;
        process.stdout.write(`          heap snapshot after warm-up: ${baselineSnapshot}\n`);
    }, warmUpMs);

    const hardStop = setTimeout(() => {
        process.stdout.write("soak: clients did not finish 3 minutes after the end; stopping the server\n");
        server.child.kill("SIGKILL");
        process.exit(1);
    }, minutes * 60_000 + 180_000);
    await Promise.all(apiKeys.map((key, index) => new SoakClient(server.origin, key, index).run(until)));
    clearInterval(ticker);
    clearTimeout(warmUpSnapshot);
    await report();

    if (snapshotDir != null && baselineSnapshot != null) {
        const final = (await server.request<{path: string}>({type: "snapshot", path: path.join(snapshotDir, `soak-${process.pid}-end.heapsnapshot`)})).path;
        process.stdout.write(`heap snapshot at the end: ${final}\nobject kinds that grew most (self bytes), warm-up → end:\n`);
        for (const line of heapGrowth(summarizeHeapSnapshot(baselineSnapshot), summarizeHeapSnapshot(final)))
            process.stdout.write(`  ${line}\n`);
    }
    await server.stop();
    clearTimeout(hardStop);

    const afterWarmUp = timeline.filter((entry) => entry.seconds * 1000 >= warmUpMs);
    const rss = afterWarmUp.map((entry) => entry.sample.rss);
    const heap = afterWarmUp.map((entry) => entry.sample.heapUsed);
    process.stdout.write(`\nsoak done: ${stats.total} requests in ${((Date.now() - started) / 60_000).toFixed(1)} min, ${stats.unexpected} unexpected errors\n`);
    if (rss.length >= 2)
        process.stdout.write(`after warm-up (${Math.round(warmUpMs / 1000)} s): RSS ${mb(rss[0]!)} → ${mb(rss.at(-1)!)} MB (min ${mb(Math.min(...rss))}, max ${mb(Math.max(...rss))}, slope ${slopePerMinute(afterWarmUp.map((entry) => [entry.seconds, entry.sample.rss]))} MB/min); heap used ${mb(heap[0]!)} → ${mb(heap.at(-1)!)} MB (slope ${slopePerMinute(afterWarmUp.map((entry) => [entry.seconds, entry.sample.heapUsed]))} MB/min)\n`);
    for (const [message, count] of stats.unexpectedMessages)
        process.stdout.write(`  unexpected ${count}×: ${message}\n`);
    return stats.unexpected === 0 ? 0 : 1;
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
        return ` (anonymous ${mb(anonymous)} of which outside the JS heap ${mb(anonymous - sample.heapTotal)}, file ${mb(kb("RssFile") * 1024)})`;
    } catch {
        return "";
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
