import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import path from "node:path";
import {describe, it} from "node:test";
// @ts-expect-error: a plain .mjs script module, without types
import {withModelsTable} from "../../../../scripts/lib/modelsTable.mjs";
import {repoRoot} from "../../../helpers/paths.js";

describe("docs/models.md's families table", () => {
    it("is the one the family table test's recorded results make (npm run docs:flags rewrites it)", () => {
        const markdown = readFileSync(path.join(repoRoot, "docs/models.md"), "utf8");
        const results = JSON.parse(readFileSync(path.join(repoRoot, "docs/models-results.json"), "utf8")) as unknown[];
        assert.ok(results.length >= 27, `${results.length} families recorded`);
        assert.equal((withModelsTable as (markdown: string, results: unknown[]) => string)(markdown, results), markdown);
    });
});
