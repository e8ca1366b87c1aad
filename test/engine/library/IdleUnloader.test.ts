import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {HostedEngine} from "../../../src/engine/HostedEngine.js";
import {IdleUnloader} from "../../../src/engine/library/IdleUnloader.js";
import {LibraryEntry} from "../../../src/engine/library/LibraryEntry.js";

/** A loaded entry last used at `lastUsedAt`, whose engine only says it is ready. */
function entry(id: string, lastUsedAt: number, keepAliveMs: number | null, inFlight = 0): LibraryEntry {
    const spec = {id, path: `/models/${id}.gguf`, bytes: 1, parts: 1, projector: null, quantization: null, aliases: [], contextSize: null,
        parallel: null};
    const made = new LibraryEntry(spec, {state: "ready"} as unknown as HostedEngine);
    Object.assign(made, {lastUsedAt, keepAliveMs, inFlight});
    return made;
}

function unloader(entries: LibraryEntry[], defaultIdleMs: number | null, now: () => number) {
    const unloaded: string[] = [];
    const log: string[] = [];
    const idle = new IdleUnloader({
        defaultIdleMs, entries: () => entries, unload: (model) => unloaded.push(model.id), now, log: (line) => log.push(line)
    });
    return {idle, unloaded, log};
}

describe("IdleUnloader", () => {
    it("a keep_alive overrides the operator's idle time; 0 goes at once, Infinity never, null follows the default", () => {
        const models = [entry("zero", 1000, 0), entry("forever", 0, Infinity), entry("default", 0, null), entry("long", 0, 60_000)];
        const {idle, unloaded, log} = unloader(models, 500, () => 1000);
        idle.check();
        idle.stop();
        assert.deepEqual(unloaded, ["zero", "default"]);
        assert.deepEqual(log, [
            "models: unloading zero (idle for 0 s, as its keep_alive asked)", "models: unloading default (idle for 1 s)"
        ]);
    });

    it("without an operator idle time only a keep_alive unloads; never a model with a request in flight", () => {
        const models = [entry("busy", 0, 0, 1), entry("default", 0, null), entry("short", 0, 100)];
        const {idle, unloaded} = unloader(models, null, () => 10_000);
        idle.check();
        idle.stop();
        assert.deepEqual(unloaded, ["short"]);
    });

    it("arms one timer for the next deadline, on the real clock", async () => {
        const {idle, unloaded} = unloader([entry("soon", Date.now(), 50), entry("later", Date.now(), 60_000)], null, Date.now);
        idle.check();
        assert.deepEqual(unloaded, []);
        await new Promise((resolve) => setTimeout(resolve, 200));
        idle.stop();
        assert.deepEqual(unloaded, ["soon"]);
    });
});
