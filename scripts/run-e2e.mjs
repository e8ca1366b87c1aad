// Runs the VS Code end-to-end test (test/e2e-vscode/*.e2e.ts, not part of `npm test`: it needs the tools that
// scripts/e2e-setup.sh installs and the VSIX that scripts/package-vsix.mjs builds).
import {spawnSync} from "node:child_process";

const started = performance.now();
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=1", "--test-timeout=300000", "test/e2e-vscode/workbench.e2e.ts"], {stdio: "inherit"});
console.log(`run-e2e: ${((performance.now() - started) / 1000).toFixed(1)} s`);
process.exit(result.status ?? 1);
