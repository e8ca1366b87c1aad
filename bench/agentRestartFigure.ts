import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {claudeCodeSession, codexSession, killHard} from "../test/helpers/agentSessions.js";
import {serveCli} from "../test/helpers/cliServer.js";
import {waitForStates} from "../test/helpers/promptStates.js";
import type {BenchModel} from "./benchModels.js";
import type {FigureRow} from "./depthFigure.js";

const key = "sk-bench-agent-restart-0123456789";

/**
 * Figure 6 (issue 39 item 1): an agent's session across a hard restart, as a user runs the server (`dist/cli.js serve`,
 * its default threads and store, one sequence of 32k). Codex's captured first request (`store: false`) and Claude
 * Code's (Messages, stateless) are answered cold with one token; the server is killed with `kill -9` and started again on
 * the same data folder; the agent's next turn (one more exchange) is timed the same way. Rows: the cached share of the
 * next turn's prompt, and the cold first token's time over the restored one's (targets: ≥ 95 % of the shared prefix,
 * which is the first prompt less the few tokens of its generation prompt, and ≥ 10× faster).
 */
export async function agentRestartRows(model: BenchModel, log: (line: string) => void): Promise<FigureRow[]> {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "lr-bench-agent-restart-"));
    const keyFile = path.join(folder, "keys");
    fs.writeFileSync(keyFile, `${key}\n`, {mode: 0o600});
    const serve = (dataDir: string) => serveCli(["--model", model.path, "--api-key-file", keyFile, "--parallel", "1",
        "--context-size", "32768", "--data-dir", dataDir]);
    const rows: FigureRow[] = [];
    try {
        for (const agent of [codexSession, claudeCodeSession]) {
            const dataDir = path.join(folder, agent.name.replace(/\W/g, ""));
            const first = await serve(dataDir);
            let cold;
            try {
                cold = await agent.first(first, key);
                await waitForStates(dataDir, 1);
            } finally {
                await killHard(first);
            }
            const restarted = await serve(dataDir);
            try {
                const next = await agent.next(restarted, key);
                log(`${agent.name}: cold ${cold.prompt} tokens in ${cold.ms.toFixed(0)} ms; after kill -9 ${next.cached} of `
                    + `${next.prompt} cached, ${next.ms.toFixed(0)} ms`);
                rows.push([`6. ${agent.name}'s next turn after kill -9: cold / restored time to first token`,
                    (cold.ms / next.ms).toFixed(1), `${next.cached} cached of the ${cold.prompt} the first turn's prompt had `
                        + `(${(100 * next.cached / cold.prompt).toFixed(1)} %); `
                        + `${(cold.ms / 1000).toFixed(1)} s / ${next.ms.toFixed(0)} ms; target ≥ 10, ≥ 95 % of the shared prefix`]);
            } finally {
                await killHard(restarted);
            }
        }
        return rows;
    } finally {
        fs.rmSync(folder, {recursive: true, force: true});
    }
}
