// Runs node:test over test/**/*.test.ts (Node 20's --test does not expand globs).
// Usage: node scripts/run-tests.mjs [path-or-substring ...]
import {spawnSync} from "node:child_process";
import {readdirSync} from "node:fs";
import path from "node:path";

function find(dir) {
    return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory())
            return entry.name === "helpers" || entry.name === "fixtures" ? [] : find(full);
        return entry.name.endsWith(".test.ts") ? [full] : [];
    });
}

const filters = process.argv.slice(2);
const files = find("test").sort().filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)));
if (files.length === 0) {
    console.error(`no test files match ${filters.join(" ")}`);
    process.exit(1);
}
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=1", "--test-timeout=600000", ...files], {stdio: "inherit"});
process.exit(result.status ?? 1);
