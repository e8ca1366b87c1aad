/**
 * A model's own process (bundled as dist/modelProcessMain.js, started by `ProcessEngine`): one `LlamaEngine`, driven over
 * the IPC channel. A native crash here (an abort in llama.cpp, an out-of-memory kill) ends this process only; the server
 * and the library's other models keep serving (docs/models.md, "A crash inside a model").
 */
import {GenerationActivity} from "../GenerationActivity.js";
import {LlamaEngine, type LlamaEngineOptions} from "../llama/LlamaEngine.js";
import {loadEngineBackend} from "../models/loadBinding.js";
import {heartbeatIntervalMs} from "./ProcessWatchdog.js";
import type {EngineLease, EngineStats} from "../types.js";
import {
    sendableError, type CallMessage, type CallResults, type ChildMessage, type ModelProcessInit, type ParentMessage, type WarmBinding
} from "./modelProcessProtocol.js";

const leases = new Map<number, EngineLease>();
const aborts = new Map<number, AbortController>();
let nextLease = 0;
type Llama = Awaited<NonNullable<LlamaEngineOptions["binding"]>>;
let engine: LlamaEngine | undefined;
/** The native backend, loading from the first message on: a spare process has it ready when its model comes. */
let binding: Promise<Llama> | undefined;

function send(message: ChildMessage, then?: () => void): void {
    // A parent gone means nothing is listening: the disconnect handler below ends this process.
    if (process.connected)
        process.send!(message, undefined, {}, then);
    else
        then?.();
}

/** The engine's counters, with this process's id and resident memory (what `/v1/status` shows per model). */
function statsOf(running: LlamaEngine): EngineStats {
    return {...running.stats(), process: {pid: process.pid, rssBytes: process.memoryUsage.rss()}};
}

function start(options: ModelProcessInit): LlamaEngine {
    const activity = new GenerationActivity();
    const started = new LlamaEngine({
        ...options, activity, binding,
        promptCache: options.promptCache == null ? undefined
            : {...options.promptCache, log: (line) => send({type: "log", line})}
    });
    activity.onChange((snapshot) => send({type: "activity", snapshot}));
    started.onStateChange((state) => send({type: "state", state, model: started.model, stats: statsOf(started)}));
    started.onGeneration((summary) => send({type: "generation", summary}));
    return started;
}

/** Runs one call; its answer (or failure) carries the engine's counters as they are after it. */
async function answer(running: LlamaEngine, message: CallMessage): Promise<void> {
    const controller = new AbortController();
    aborts.set(message.call, controller);
    // Disposed, the process ends once its answer is on the way.
    const then = message.type === "dispose" ? () => process.exit(0) : undefined;
    try {
        const value = await perform(running, message, controller.signal);
        send({type: "result", call: message.call, value, stats: statsOf(running)}, then);
    } catch (error) {
        send({type: "error", call: message.call, error: sendableError(error), stats: statsOf(running)}, then);
    } finally {
        aborts.delete(message.call);
    }
}

async function perform(running: LlamaEngine, message: CallMessage, signal: AbortSignal): Promise<CallResults[CallMessage["type"]]> {
    const {call} = message;
    switch (message.type) {
        case "load":
            return running.load(message.source, (progress) => send({type: "progress", call, progress}));
        case "count":
            return running.countPromptTokens(message.turns, message.tools);
        case "acquire": {
            const lease = await running.acquire(message.turns, message.tools, signal, {
                ...message.shape, onQueued: () => send({type: "queued", call, stats: statsOf(running)})
            });
            const id = nextLease++;
            leases.set(id, lease);
            return {lease: id, promptTokens: lease.promptTokens, cachedPrefixTokens: lease.cachedPrefixTokens};
        }
        case "generate": {
            const lease = leases.get(message.lease);
            if (lease == null)
                throw new Error("The sequence this generation was to run on was released.");
            return lease.generate({
                ...message.request, signal,
                onEvent: (event) => send({type: "event", call, event}),
                onPromptProgress: (progress) => send({type: "prompt", call, progress})
            });
        }
        case "complete":
            return running.complete({
                ...message.request, signal, onText: (text) => send({type: "event", call, event: {type: "text", text}})
            });
        case "embed":
            return running.embed({...message.request, signal});
        case "forget":
            return running.forgetPromptStates(message.partition);
        case "dispose":
            for (const lease of leases.values())
                lease.release();
            leases.clear();
            await running.dispose();
            return null;
    }
}

/** How often the counters are sent while a released sequence is still busy (a prompt state being saved holds it). */
const statsRefreshMs = 250;
let statsRefresh: NodeJS.Timeout | undefined;

/**
 * Sends the counters now and, while a sequence is still busy or a request queued, again every `statsRefreshMs` until
 * none is: a lease whose prompt state is being saved frees its sequence after the release, with no message to carry it.
 */
function reportStatsUntilIdle(running: LlamaEngine): void {
    const stats = statsOf(running);
    send({type: "stats", stats});
    clearTimeout(statsRefresh);
    if (stats.sequencesBusy > leases.size || stats.queueDepth > 0)
        statsRefresh = setTimeout(() => reportStatsUntilIdle(running), statsRefreshMs);
}

function warm({gpu, maxThreads}: WarmBinding): Promise<Llama> {
    const loading = loadEngineBackend(gpu, maxThreads);
    // A backend that cannot load fails the model's load, which reports it; nothing is unhandled meanwhile.
    loading.catch(() => undefined);
    return loading;
}

process.on("message", (message: ParentMessage) => {
    if (message.type === "warm") {
        binding ??= warm(message.binding);
        return;
    }
    if (message.type === "init") {
        engine ??= start(message.options);
        return;
    }
    if (engine == null)
        return;
    if (message.type === "abort")
        aborts.get(message.call)?.abort(new Error("The request was cancelled."));
    else if (message.type === "release") {
        leases.get(message.lease)?.release();
        leases.delete(message.lease);
        reportStatsUntilIdle(engine);
    } else
        void answer(engine, message);
});

// Alive, whatever the engine is doing: the server kills a process that falls silent (ProcessWatchdog).
setInterval(() => send({type: "heartbeat"}), heartbeatIntervalMs);

// The server's process went away (it exited, or was killed): a model process never outlives it.
process.on("disconnect", () => process.exit(0));
