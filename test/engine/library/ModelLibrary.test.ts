import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {HostedEngine} from "../../../src/engine/HostedEngine.js";
import {ModelLibrary} from "../../../src/engine/library/ModelLibrary.js";
import type {LibraryModelSpec} from "../../../src/engine/library/LibraryEntry.js";
import type {GenerationSummary} from "../../../src/engine/types.js";

const spec = (id: string): LibraryModelSpec => ({
    id, path: `/m/${id}.gguf`, bytes: 2 ** 30, parts: 1, projector: null, quantization: null, aliases: [], contextSize: null, parallel: null
});

const summary: GenerationSummary = {
    stopReason: "stop", text: "", calls: [], durationMs: 10, timeToFirstTokenMs: 2,
    usage: {inputTokens: 3, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0}
};

describe("model library: generation summaries", () => {
    it("names the model that generated each one, for the editor's timings and status bar", () => {
        // Each model's engine reports its generations unnamed, as an engine of one model does.
        const reporters = new Map<string, (summary: GenerationSummary) => void>();
        const library = new ModelLibrary({
            models: [spec("coder"), spec("small")],
            createEngine: (model) => ({
                onGeneration: (listener: (summary: GenerationSummary) => void) => {
                    reporters.set(model.id, listener);
                    return () => undefined;
                },
                onStateChange: () => () => undefined,
                dispose: () => Promise.resolve()
            }) as unknown as HostedEngine,
            estimate: () => Promise.reject(new Error("not estimated here")),
            maxLoaded: 2, memoryBudgetBytes: 2 ** 40, idleUnloadSeconds: null
        });
        const heard: (string | undefined)[] = [];
        library.onGeneration((generation) => heard.push(generation.model));
        reporters.get("small")!(summary);
        reporters.get("coder")!(summary);
        assert.deepEqual(heard, ["small", "coder"]);
    });
});

/**
 * A model engine as a fake: loads and unloads after a tick, answers each request after `generateMs`, and records
 * what it did, so that the library's own scheduling (loads taking turns, room made by unloading) is tested alone.
 */
function fakeModelEngine(id: string, events: string[], generateMs = 5): HostedEngine {
    let state: "unloaded" | "ready" = "unloaded";
    const info = {id, path: `/m/${id}.gguf`, contextSize: 2048, sequences: 2, trainContextSize: 2048, chatWrapper: "fake"};
    const tick = (ms = 1) => new Promise((resolve) => setTimeout(resolve, ms));
    return {
        kind: "local",
        get state() {
            return state;
        },
        get model() {
            return state === "ready" ? info : null;
        },
        load: async () => {
            await tick();
            state = "ready";
            events.push(`load ${id}`);
            return info;
        },
        unload: async () => {
            await tick();
            state = "unloaded";
            events.push(`unload ${id}`);
        },
        acquire: () => {
            assert.equal(state, "ready", `a sequence of ${id} was taken while it was not loaded`);
            return Promise.resolve({
                promptTokens: 1, cachedPrefixTokens: 0, release: () => undefined,
                generate: async () => {
                    await tick(generateMs);
                    return {stopReason: "stop" as const, text: id, calls: [], usage: summary.usage, timeToFirstTokenMs: 1};
                }
            });
        },
        stats: () => ({sequencesBusy: 0, sequencesTotal: 2, queueDepth: 0, queueLimit: 8}),
        onGeneration: () => () => undefined,
        onStateChange: () => () => undefined,
        forgetPromptStates: () => Promise.resolve(0),
        dispose: () => Promise.resolve()
    } as unknown as HostedEngine;
}

/** A library of `a` and `b` on fake engines (each answer takes `generateMs`), at most one loaded; `events`: their loads and unloads. */
function oneAtATime(generateMs?: number): {library: ModelLibrary, events: string[]} {
    const events: string[] = [];
    const library = new ModelLibrary({
        models: [spec("a"), spec("b")], createEngine: (model) => fakeModelEngine(model.id, events, generateMs),
        estimate: () => Promise.resolve({bytes: 2 ** 20, contextSize: 2048}),
        maxLoaded: 1, memoryBudgetBytes: 2 ** 40, idleUnloadSeconds: null
    });
    return {library, events};
}

describe("model library: loads taking turns", () => {
    it("with one model at a time, requests for two models arriving together all finish (no load waits for one queued behind it)",
        async () => {
            const {library, events} = oneAtATime();
            const turns = [{role: "user" as const, text: "hi"}];
            const requests = ["a", "b", "a", "b", "b", "a"].map((model) => library.generate({turns, model}).then((result) => result.text));
            const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error(`stuck after: ${events.join(", ")}`)), 5000));
            assert.deepEqual(await Promise.race([Promise.all(requests), timeout]), ["a", "b", "a", "b", "b", "a"]);
            // Never two loaded at once: each load after the first follows the other's unload.
            for (const [index, event] of events.entries())
                if (event.startsWith("load") && index > 0)
                    assert.match(events[index - 1]!, /^unload /, events.join(", "));
            await library.dispose();
        });
});

describe("model library: a load waiting for room", () => {
    it("is not starved by steady traffic to the loaded model: that model's new requests wait for it", async () => {
        const {library} = oneAtATime(20);
        const turns = [{role: "user" as const, text: "hi"}];
        const started = Date.now();
        // Three clients keep `a` busy for 1.5 s, each sending its next request as the last one ends.
        const steady = [0, 1, 2].map(async () => {
            while (Date.now() - started < 1500)
                await library.generate({turns, model: "a"});
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
        const asked = Date.now();
        assert.equal((await library.generate({turns, model: "b"})).text, "b");
        const waited = Date.now() - asked;
        await Promise.all(steady);
        assert.ok(waited < 600, `b waited ${waited} ms for a's steady traffic (it ran 1,500 ms)`);
        await library.dispose();
    });
});

describe("model library: a shared load", () => {
    it("that the request which started it cancels is started again for the requests still waiting on it", async () => {
        const {library} = oneAtATime(300);
        const turns = [{role: "user" as const, text: "hi"}];
        const busy = library.generate({turns, model: "a"});
        await new Promise((resolve) => setTimeout(resolve, 30));
        // b's load waits for a's request; the request that started it is cancelled meanwhile, another waits on the same load.
        const cancelled = new AbortController();
        const first = library.generate({turns, model: "b", signal: cancelled.signal});
        await new Promise((resolve) => setTimeout(resolve, 10));
        const second = library.generate({turns, model: "b"});
        await new Promise((resolve) => setTimeout(resolve, 30));
        cancelled.abort();
        await assert.rejects(first);
        assert.equal((await second).text, "b", "a request that was not cancelled is not failed as cancelled");
        assert.equal((await busy).text, "a");
        await library.dispose();
    });
});

describe("model library: a request waiting on another's load", () => {
    it("is cancelled at once when its client leaves, not when the load ends (a stopped model process made that 10 s)", async () => {
        const {library} = oneAtATime(800);
        const turns = [{role: "user" as const, text: "hi"}];
        const busy = library.generate({turns, model: "a"});
        await new Promise((resolve) => setTimeout(resolve, 30));
        // b's load (started by the first request) waits ~800 ms for a's room; the second request waits on that load.
        const starter = library.generate({turns, model: "b"});
        await new Promise((resolve) => setTimeout(resolve, 10));
        const leaving = new AbortController();
        const waiting = library.generate({turns, model: "b", signal: leaving.signal});
        await new Promise((resolve) => setTimeout(resolve, 50));
        const aborted = performance.now();
        leaving.abort();
        await assert.rejects(waiting, /cancelled/);
        const settledMs = performance.now() - aborted;
        assert.ok(settledMs < 200, `the cancelled request settled ${Math.round(settledMs)} ms after its abort`);
        assert.equal((await starter).text, "b");
        assert.equal((await busy).text, "a");
        await library.dispose();
    });
});
