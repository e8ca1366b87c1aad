// Runs the VS Code end-to-end tests (test/e2e-vscode/*.e2e.ts, not part of `npm test`: it needs the tools that
// scripts/e2e-setup.sh installs and the VSIX that scripts/package-vsix.mjs builds).
import {spawnSync} from "node:child_process";
import fs from "node:fs";

const started = performance.now();
// Every test/e2e-vscode/*.e2e.ts, one after the other (each starts its own code-server).
const files = fs.readdirSync("test/e2e-vscode").filter((name) => name.endsWith(".e2e.ts")).sort().map((name) => `test/e2e-vscode/${name}`);
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=1", "--test-timeout=300000", ...files],
    {stdio: "inherit"});
console.log(`run-e2e: ${((performance.now() - started) / 1000).toFixed(1)} s`);
process.exit(result.status ?? 1);
