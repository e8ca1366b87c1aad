import assert from "node:assert/strict";
import {readdirSync, readFileSync} from "node:fs";
import path from "node:path";
import {describe, it} from "node:test";
import {repoRoot} from "../helpers/paths.js";

/**
 * One error catalogue: every error the server sends is made by a named constructor in src/protocol/errors.ts,
 * so a code, its status and its wording are written once.
 */
function sources(dir: string): string[] {
    return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        return entry.isDirectory() ? sources(full) : entry.name.endsWith(".ts") ? [full] : [];
    });
}

describe("the error catalogue (src/protocol/errors.ts)", () => {
    const building = sources(path.join(repoRoot, "src"))
        .filter((file) => /new ApiError\(/.test(readFileSync(file, "utf8")))
        .map((file) => path.relative(repoRoot, file).split(path.sep).join("/"))
        .filter((file) => file !== "src/protocol/errors.ts");

    it("no file outside it writes `new ApiError(`", () => {
        assert.deepEqual(building, [], "use (or add) a named constructor in src/protocol/errors.ts");
    });
});
