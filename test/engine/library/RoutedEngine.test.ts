import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {EngineError} from "../../../src/engine/EngineError.js";
import {GenerationActivity} from "../../../src/engine/GenerationActivity.js";
import type {HostedEngine} from "../../../src/engine/HostedEngine.js";
import {RoutedEngine} from "../../../src/engine/library/RoutedEngine.js";
import type {EngineStats, LibraryModel, ModelDirectory, ModelInfo} from "../../../src/engine/types.js";
import {libraryEntry} from "../../helpers/libraryModels.js";

/** What the fakes were asked, in order: which side, which call, for which model. */
type Call = [side: "local" | "upstream", call: string, model?: string, keepAliveMs?: string];

const upstreamInfo: ModelInfo = {
    id: "big", path: "http://gpu:8000", contextSize: 32_768, sequences: 4, trainContextSize: 32_768, chatWrapper: "upstream big"
};

/** The port as a fake: every call recorded, a lease that answers at once, fixed stats. */
function fakeEngine(side: Call[0], calls: Call[], fields: Partial<HostedEngine> = {}): HostedEngine {
    const stats: EngineStats = {sequencesBusy: 1, sequencesTotal: side === "local" ? 2 : 4, queueDepth: 0, queueLimit: 8};
    return {
        kind: side, state: "ready", model: null, activity: new GenerationActivity(),
        acquire: (_turns, _tools, _signal, shape) => {
            calls.push([side, "acquire", shape?.model]);
            return Promise.resolve({
                promptTokens: 3, cachedPrefixTokens: 0,
                generate: (request) => {
                    calls.push([side, "generate", request.model]);
                    const usage = {inputTokens: 3, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0};
                    return Promise.resolve({stopReason: "stop" as const, text: side, calls: [], usage, timeToFirstTokenMs: 1});
                },
                release: () => calls.push([side, "release", shape?.model])
            });
        },
        generate: () => Promise.reject(new Error("the routed engine generates on a lease")),
        countPromptTokens: (_turns, _tools, model) => {
            calls.push([side, "count", model]);
            return Promise.resolve(side === "local" ? 10 : 20);
        },
        stats: () => stats,
        onStateChange: () => () => undefined,
        onGeneration: () => () => undefined,
        load: (source) => {
            calls.push([side, "load", source]);
            return Promise.resolve({...upstreamInfo, id: source});
        },
        unload: () => Promise.resolve(),
        dispose: () => Promise.resolve(),
        forgetPromptStates: () => Promise.resolve(side === "local" ? 2 : 0),
        ...fields
    };
}

/** A library of `coder` (the default) and `small` (alias `fast`), or of nothing. */
function fakeDirectory(calls: Call[], ids: string[] = ["coder", "small"]): ModelDirectory {
    const entries: LibraryModel[] = ids.map((id) => libraryEntry(id, id === "small" ? {aliases: ["fast"]} : {}));
    return {
        resolve(requested) {
            if (requested == null) {
                if (entries[0] == null)
                    throw new EngineError("not_ready", "The model library is empty.");
                return entries[0].id;
            }
            const found = entries.find((model) => model.id === requested || model.aliases.includes(requested));
            if (found == null)
                throw new EngineError("model_not_found", `The model '${requested}' is not in the library.`,
                    {model: requested, served: entries.flatMap((model) => [model.id, ...model.aliases])});
            return found.id;
        },
        list: () => entries,
        loadModel: (id, _progress, keepAliveMs) => {
            calls.push(keepAliveMs === undefined ? ["local", "loadModel", id] : ["local", "loadModel", id, String(keepAliveMs)]);
            return Promise.resolve({...upstreamInfo, id});
        },
        unloadModel: (id) => {
            calls.push(["local", "unloadModel", id]);
            return Promise.resolve(true);
        },
        limits: {maxLoaded: 2, memoryBudgetBytes: 2 ** 30, idleUnloadSeconds: null},
        onChange: () => () => undefined
    };
}

/**
 * A routed engine over a library of `coder` and `small` and an upstream serving `big` and `coder` (shadowed by the local
 * one), connected unless `connected` is false.
 */
function routed(options: {connected?: boolean, localIds?: string[], now?: () => number} = {}) {
    const calls: Call[] = [];
    const library = fakeDirectory(calls, options.localIds);
    const local = Object.assign(fakeEngine("local", calls), {library});
    const connected = options.connected ?? true;
    const upstream = fakeEngine("upstream", calls, {
        state: connected ? "ready" : "unloaded", model: connected ? upstreamInfo : null,
        servedModelNames: connected ? ["big", "coder", "long"] : [],
        // Each upstream model its own context, as vLLM reports `max_model_len` per model.
        servedModelContext: (name) => (connected ? name === "long" ? 131_072 : 32_768 : null),
        stats: () => ({sequencesBusy: 2, sequencesTotal: 4, queueDepth: 1, queueLimit: 64, upstreams: [
            {url: "http://gpu:8000", state: "up", outstanding: 2, requests: 5, errors: 0, lastError: null}
        ]})
    });
    return {engine: new RoutedEngine({local, upstream}, options.now), calls};
}

describe("RoutedEngine: a library beside upstreams, routed by model name", () => {
    it("resolves a library id or alias locally, an upstream's name to it, and a name both serve to the library", () => {
        const {engine} = routed();
        assert.equal(engine.resolve("coder"), "coder");
        assert.equal(engine.resolve("fast"), "small");
        assert.equal(engine.resolve("big"), "big");
        assert.equal(engine.resolve(null), "coder", "no name: the library's default");
    });

    it("an unknown name is the library's 404, listing the names of both", () => {
        const {engine} = routed();
        assert.throws(() => engine.resolve("gpt-5"), (error: unknown) => {
            assert.ok(error instanceof EngineError);
            assert.equal(error.kind, "model_not_found");
            assert.equal(error.details.model, "gpt-5");
            assert.deepEqual(error.details.served, ["coder", "small", "fast", "big", "long"]);
            return true;
        });
    });

    it("lists the upstream's models after the library's: loaded, its hosts, no file or memory; a shadowed name once", () => {
        const {engine} = routed();
        const listed = engine.list();
        assert.deepEqual(listed.map((model) => [model.id, model.status, model.upstreamHosts]), [
            ["coder", "unloaded", undefined], ["small", "unloaded", undefined], ["big", "loaded", ["gpu:8000"]],
            ["long", "loaded", ["gpu:8000"]]
        ]);
        const [big, long] = [listed[2]!, listed[3]!];
        assert.equal(big.fileBytes, 0);
        assert.equal(big.estimatedBytes, null);
        assert.equal(big.info?.id, "big");
        assert.deepEqual([big.contextSize, long.contextSize, long.info?.contextSize], [32_768, 131_072, 131_072]);
    });

    it("sends each request to its side; the upstream is told the model it answers for, and counts it in flight", async () => {
        let clock = 1000;
        const {engine, calls} = routed({now: () => clock});
        const turns = [{role: "user" as const, text: "hi"}];
        assert.equal((await engine.generate({turns, model: "fast"})).text, "local");
        const lease = await engine.acquire(turns, [], undefined, {model: "big"});
        assert.equal(engine.list().find((model) => model.id === "big")?.inFlight, 1);
        assert.equal((await lease.generate({turns})).text, "upstream");
        clock = 5000;
        lease.release();
        lease.release();
        const big = engine.list().find((model) => model.id === "big")!;
        assert.deepEqual([big.inFlight, big.lastUsedAt], [0, 5000]);
        assert.deepEqual(calls, [
            ["local", "acquire", "fast"], ["local", "generate", "fast"], ["local", "release", "fast"],
            ["upstream", "acquire", "big"], ["upstream", "generate", "big"], ["upstream", "release", "big"]
        ]);
    });

    it("counts prompt tokens where the model is served", async () => {
        const {engine, calls} = routed();
        assert.equal(await engine.countPromptTokens([], [], "big"), 20);
        assert.equal(await engine.countPromptTokens([], []), 10);
        assert.deepEqual(calls, [["upstream", "count", "big"], ["local", "count", "coder"]]);
    });

    it("an empty library's default is the upstream's first model", async () => {
        const {engine, calls} = routed({localIds: []});
        assert.equal(engine.resolve(null), "big");
        assert.equal(engine.resolve("coder"), "coder", "no longer shadowed");
        await engine.countPromptTokens([], []);
        assert.deepEqual(calls, [["upstream", "count", "big"]]);
    });

    it("before the upstreams are connected only the library answers, and an upstream's name is unknown", () => {
        const {engine} = routed({connected: false});
        assert.deepEqual(engine.list().map((model) => model.id), ["coder", "small"]);
        assert.throws(() => engine.resolve("big"),
            (error: unknown) => error instanceof EngineError && error.details.served?.join() === "coder,small,fast");
    });

    it("loads and unloads library models only; an upstream's model has nothing to load or unload here", async () => {
        const {engine, calls} = routed();
        // The directory's load, as the load route calls it (an arrow: it may be taken off the object).
        const load = engine.loadModel;
        assert.equal((await load("big")).id, "big");
        assert.equal(await engine.unloadModel("big"), false);
        await load("small", undefined, 30_000);
        assert.equal(await engine.unloadModel("small"), true);
        // The library's own load, with the route's keep_alive.
        assert.deepEqual(calls, [["local", "loadModel", "small", "30000"], ["local", "unloadModel", "small"]]);
    });

    it("sums both sides' sequences and queues (the upstream's while connected) and keeps its servers' states", () => {
        const stats = routed().engine.stats();
        assert.deepEqual([stats.sequencesBusy, stats.sequencesTotal, stats.queueDepth, stats.queueLimit], [3, 6, 1, 72]);
        assert.equal(stats.upstreams?.[0]?.url, "http://gpu:8000");
        const alone = routed({connected: false}).engine.stats();
        assert.deepEqual([alone.sequencesBusy, alone.sequencesTotal, alone.queueLimit], [1, 2, 8]);
    });

    it("forgets prompt states on both sides", async () => {
        assert.equal(await routed().engine.forgetPromptStates("owner"), 2);
    });
});
