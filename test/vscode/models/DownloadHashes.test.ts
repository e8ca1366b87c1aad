import assert from "node:assert/strict";
import {test} from "node:test";
import {ModelFiles, type KeptState} from "../../../src/vscode/models/ModelFiles.js";

/** The extension's global state as a plain map that round-trips through JSON, as `vscode.Memento` does. */
function memento(): KeptState & {values: Map<string, string>} {
    const values = new Map<string, string>();
    return {
        values,
        get: <T>(key: string, fallback: T) => (values.has(key) ? JSON.parse(values.get(key)!) as T : fallback),
        update: (key: string, value: unknown) => {
            values.set(key, JSON.stringify(value));
            return Promise.resolve();
        }
    };
}

test("a catalog entry's first download is recorded by its URI in the global state, kept across windows, and can be forgotten", async () => {
    const state = memento();
    const uri = "hf:user/repo:Q4_K_M";
    const hashes = {"model.gguf": "a".repeat(64)};
    const files = new ModelFiles(state, () => "/models");
    assert.equal(files.hashes.recorded(uri), null);
    await files.hashes.record(uri, hashes, new Date("2026-12-05T14:00:00Z"));
    await files.hashes.record("https://example.com/other.gguf", {"other.gguf": "b".repeat(64)});
    // Another window (or a restart) reads the same state.
    const later = new ModelFiles(state, () => "/models");
    assert.deepEqual(later.hashes.recorded(uri), hashes);
    assert.match(state.values.get("localResponses.downloadHashes")!, /"recordedAt":"2026-12-05T14:00:00\.000Z"/);
    await later.hashes.forget(uri);
    assert.equal(later.hashes.recorded(uri), null);
    assert.deepEqual(later.hashes.recorded("https://example.com/other.gguf"), {"other.gguf": "b".repeat(64)}, "other entries stay");
});
