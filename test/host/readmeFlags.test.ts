import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {it} from "node:test";
import {cliHelp} from "../../src/host/cliOptions.js";
import {repoRoot} from "../helpers/paths.js";

it("README lists every CLI flag exactly as --help prints it (npm run docs:flags)", () => {
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
    const block = /<!-- flags:start -->\n```\n([\s\S]*?)\n```\n<!-- flags:end -->/.exec(readme);
    assert.ok(block, "README has the flags block");
    assert.equal(block[1], cliHelp().trimEnd());
});
