// Runs node:test over test/**/*.test.ts (Node 20's --test does not expand globs), in one run so that one
// summary counts every test. With --e2e the VS Code end-to-end tests (test/e2e-vscode/*.e2e.ts) join the run:
// they need `npm run e2e:prepare` (tools and the VSIX) first.
// Usage: node scripts/run-tests.mjs [--e2e] [--fast] [--upstream] [path-or-substring ...]
import {spawnSync} from "node:child_process";
import {readdirSync} from "node:fs";
import path from "node:path";

function find(dir, suffix) {
    return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory())
            return entry.name === "helpers" || entry.name === "fixtures" ? [] : find(full, suffix);
        return entry.name.endsWith(suffix) ? [full] : [];
    });
}

const args = process.argv.slice(2);
const withE2e = args.includes("--e2e");
// --fast: only the tests that need no model (everything outside test/model/, see test/testLayout.test.ts).
const fast = args.includes("--fast");
// --upstream: the client suites' server runs in --engine upstream in front of a real llama-server (test/helpers/clientHarness.ts).
const upstream = args.includes("--upstream");
const filters = args.filter((arg) => arg !== "--e2e" && arg !== "--fast" && arg !== "--upstream");
const files = [...find("test", ".test.ts").sort(), ...(withE2e ? find("test/e2e-vscode", ".e2e.ts").sort() : [])]
    .filter((file) => !fast || !file.startsWith(path.join("test", "model") + path.sep))
    .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)));
if (files.length === 0) {
    console.error(`no test files match ${filters.join(" ")}`);
    process.exit(1);
}
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=1", "--test-timeout=600000", ...files], {
    stdio: "inherit",
    env: upstream ? {...process.env, LOCAL_RESPONSES_TEST_ENGINE: "upstream"} : process.env
});
process.exit(result.status ?? 1);
