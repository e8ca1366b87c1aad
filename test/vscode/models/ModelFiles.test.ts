import assert from "node:assert/strict";
import {test} from "node:test";
import {ModelFiles, type KeptState} from "../../../src/vscode/models/ModelFiles.js";

/** The extension's global state as a plain map (what `vscode.Memento` keeps across windows). */
function memento(): KeptState {
    const values = new Map<string, unknown>();
    return {
        get: <T>(key: string, fallback: T) => (values.has(key) ? values.get(key) as T : fallback),
        update: (key: string, value: unknown) => {
            values.set(key, value);
            return Promise.resolve();
        }
    };
}

test("ModelFiles keeps recent files most recent first, without duplicates, and says each change", async () => {
    let folder = "/models/a";
    const files = new ModelFiles(memento(), () => folder);
    let changes = 0;
    const off = files.onChange(() => changes++);
    assert.deepEqual(files.recent(), []);
    await files.remember("/m/one.gguf");
    await files.remember("/m/two.gguf");
    await files.remember("/m/one.gguf");
    assert.deepEqual(files.recent(), ["/m/one.gguf", "/m/two.gguf"]);
    await files.forget("/m/two.gguf");
    assert.deepEqual(files.recent(), ["/m/one.gguf"]);
    files.changed();
    assert.equal(changes, 5, "remember ×3, forget, and a download's change");
    folder = "/models/b";
    assert.equal(files.directory(), "/models/b", "the folder follows its setting");
    off();
    await files.remember("/m/three.gguf");
    assert.equal(changes, 5, "no change is told after unsubscribing");
});
