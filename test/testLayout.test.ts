import assert from "node:assert/strict";
import {readFileSync, readdirSync} from "node:fs";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {describe, it} from "node:test";
import {repoRoot} from "./helpers/paths.js";

/**
 * Tests that run a model (node-llama-cpp on the shared models, or a llama-server) live in `test/model/`, mirroring
 * `src/` there; every other test is fast and needs none (`npm run test:fast`). Both directions are checked: a test
 * is in `test/model/` exactly when it, or a test helper it imports, loads a model.
 */
const testDir = path.join(repoRoot, "test");
/** What loading a model looks like in a test or a helper. */
const loadsModel =
    /\b(loadNodeLlamaCpp|startTestServer|useTinyModel|syntheticModel|startLlamaServer|getLlama)\b|\b(loadModel|new LlamaEngine)\(|(?<![/\w])models\.\w+/;

function files(dir: string): string[] {
    return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        return entry.isDirectory() ? files(full) : entry.name.endsWith(".ts") ? [full] : [];
    });
}

/** Whether a test file, or a test-side module it imports (transitively), loads a model. */
function reachesModel(file: string, seen = new Set<string>()): boolean {
    if (seen.has(file))
        return false;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    if (loadsModel.test(text))
        return true;
    // Type-only imports load nothing.
    return [...text.matchAll(/^import (?!type )[^;]*?from\s+"(\.{1,2}\/[^"]+)\.js"/gm)]
        .map((match) => path.resolve(path.dirname(file), `${match[1]}.ts`))
        .filter((imported) => imported.startsWith(testDir + path.sep))
        .some((imported) => reachesModel(imported, seen));
}

describe("test layout", () => {
    it("a test is under test/model/ exactly when it loads a model", () => {
        const tests = files(testDir).filter((file) => file.endsWith(".test.ts") && file !== fileURLToPath(import.meta.url));
        const misplaced = tests.filter((file) => file.startsWith(path.join(testDir, "model") + path.sep) !== reachesModel(file));
        assert.deepEqual(misplaced.map((file) => path.relative(repoRoot, file)), []);
        assert.ok(tests.length > 100, `${tests.length} tests`);
    });
});
