import assert from "node:assert/strict";
import {spawnSync} from "node:child_process";
import {readFileSync} from "node:fs";
import path from "node:path";
import {describe, it} from "node:test";
import {repoRoot} from "./helpers/paths.js";

/**
 * The layer rules of docs/architecture.md (`.dependency-cruiser.cjs`): each folder imports only those below it,
 * node-llama-cpp only in src/engine, vscode only in the VS Code face, no import circles. Violations that predate the
 * rules are listed in `.dependency-cruiser-known-violations.json` until the architecture step removes them; a new one
 * fails here, and a listed one that is gone must leave the list (so it can only shrink).
 */
type Violation = {type: string, from: string, to: string, rule: {name: string}};

function cruise(...extra: string[]): {status: number | null, output: string} {
    const result = spawnSync(process.execPath, [path.join(repoRoot, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs"),
        "src", "webview", "--config", ".dependency-cruiser.cjs", ...extra], {cwd: repoRoot, encoding: "utf8", maxBuffer: 64 << 20});
    return {status: result.status, output: `${result.stdout}${result.stderr}`};
}

const key = (violation: Violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`;

describe("architecture: layer rules (dependency-cruiser)", () => {
    it("finds no violation beyond the known ones", () => {
        const {status, output} = cruise("--ignore-known", ".dependency-cruiser-known-violations.json", "--output-type", "err");
        assert.equal(status, 0, output);
    });

    it("lists no known violation that is gone", () => {
        const {output} = cruise("--output-type", "json");
        const current = new Set((JSON.parse(output).summary.violations as Violation[]).map(key));
        const known = JSON.parse(readFileSync(path.join(repoRoot, ".dependency-cruiser-known-violations.json"), "utf8")) as Violation[];
        const gone = known.map(key).filter((violation) => !current.has(violation));
        assert.deepEqual(gone, [],
            "remove these from .dependency-cruiser-known-violations.json (npx depcruise-baseline src webview --config "
                + ".dependency-cruiser.cjs --output-to .dependency-cruiser-known-violations.json)");
    });
});

/** Small files (docs/architecture.md): a source file past this many lines holds more than one thing and is split. */
const maxSourceLines = 360;

describe("architecture: file size", () => {
    it(`keeps every file of src/ and webview/ within ${maxSourceLines} lines`, () => {
        const listed = spawnSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "src", "webview"],
            {cwd: repoRoot, encoding: "utf8"}).stdout.split("\n").filter((file) => file.endsWith(".ts"));
        assert.ok(listed.length > 100, "git lists the source files");
        const oversized = listed
            .map((file) => ({file, lines: readFileSync(path.join(repoRoot, file), "utf8").split("\n").length}))
            .filter(({lines}) => lines > maxSourceLines);
        assert.deepEqual(oversized, []);
    });
});
