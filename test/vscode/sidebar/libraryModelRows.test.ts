import assert from "node:assert/strict";
import {test} from "node:test";
import {libraryModelRows} from "../../../src/vscode/sidebar/libraryModelRows.js";
import {libraryEntry} from "../../helpers/libraryModels.js";

const entry = libraryEntry;

test("the Models view with a library: each model's state, memory and requests; unload on a loaded one, load on the others", () => {
    const rows = libraryModelRows([
        entry("coder", {status: "loaded", estimatedBytes: 20 * 2 ** 30, quantization: "Q4_K_M", inFlight: 2, aliases: ["gpt-5-codex"]}),
        entry("small", {}),
        entry("broken", {status: "failed", failure: "out of memory", keepAliveMs: 300_000})
    ]);
    assert.deepEqual(rows.map((row) => [row.label, row.description, row.contextValue, row.icon]), [
        ["coder", "loaded · ~20.00 GiB loaded · Q4_K_M · 2 requests", "libraryModel.loaded", "pass-filled"],
        ["small", "unloaded · 2.00 GiB", "libraryModel", "circle-large-outline"],
        ["broken", "failed · 2.00 GiB", "libraryModel", "error"]
    ]);
    assert.equal(rows[0]!.tooltip, "/m/coder.gguf\nalso: gpt-5-codex\nstays loaded when idle");
    assert.equal(rows[2]!.tooltip, "/m/broken.gguf\nfailed: out of memory\nunloads after 5 min 0 s idle");
    assert.equal(rows[1]!.target, "small");
});
