import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {claudeCodeNewSession, claudeCodeSession, claudeCodeSharedPrefix, codexSession, killHard} from "../../helpers/agentSessions.js";
import {serveCli, type CliServer} from "../../helpers/cliServer.js";
import {stateFiles, waitForStates} from "../../helpers/promptStates.js";
import {syntheticModel} from "../../helpers/syntheticModel.js";

/**
 * Issue 39 item 1, as the agents meet it: Codex's captured first request (`store: false`) and Claude Code's (Messages,
 * stateless) are answered, the server is killed with `kill -9` and started again on the same data folder, and the
 * agent's next turn (one more exchange) finds its prefix on disk: ≥ 95 % of the shared prefix cached and its first
 * token many times faster than cold; another key gets nothing of it. The model is the two-layer synthetic body with
 * Qwen2's real tokenizer and template, so the prompts have a real model's token counts (the SmolLM2 body's cold Codex
 * prompt takes minutes on a CI machine: `npm run bench:restart` gives that figure).
 */
const key = "sk-agent-restart-0123456789";
const otherKey = "sk-agent-restart-other-98765";

/** The headless server on a data folder, both keys accepted, one sequence of 32k. */
function serve(model: string, dataDir: string, keyFile: string): Promise<CliServer> {
    return serveCli(["--model", model, "--api-key-file", keyFile, "--threads", "2", "--parallel", "1", "--context-size", "32768",
        "--data-dir", dataDir]);
}

describe("an agent's session survives kill -9 (real engine, real captures, Qwen2's tokenizer)", () => {
    let model: string;
    let keyFile: string;
    const folders: string[] = [];
    before(async () => {
        model = await syntheticModel("tiny-64", "qwen2");
        const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-agent-restart-keys-"));
        folders.push(keyDir);
        keyFile = path.join(keyDir, "keys");
        fs.writeFileSync(keyFile, `${key}\n${otherKey}\n`, {mode: 0o600});
    });
    after(() => {
        for (const folder of folders)
            fs.rmSync(folder, {recursive: true, force: true});
    });

    for (const agent of [codexSession, claudeCodeSession]) {
        const {name} = agent;
        it(`${name}: the next turn after a restart finds ≥ 95 % of its prefix on disk, first token ≥ 10× faster than cold`, async () => {
            const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-agent-restart-"));
            folders.push(dataDir);
            const first = await serve(model, dataDir, keyFile);
            let cold;
            try {
                cold = await agent.first(first, key);
                assert.equal(cold.cached, 0, "a fresh server has nothing cached");
                await waitForStates(dataDir, 1);
            } finally {
                await killHard(first);
            }
            assert.equal(stateFiles(dataDir).length, 1, "the agent's prompt was saved although it is not stored");

            const restarted = await serve(model, dataDir, keyFile);
            try {
                const other = await agent.next(restarted, otherKey);
                assert.equal(other.cached, 0, "another key loads nothing of it");
                const next = await agent.next(restarted, key);
                // The shared prefix is the first prompt less its last few tokens (the generation prompt the next turn replaces).
                const shared = cold.prompt - 8;
                const ratio = cold.ms / next.ms;
                console.log(`${name}: cold ${cold.prompt} tokens in ${cold.ms.toFixed(0)} ms; after kill -9 `
                    + `${next.cached} of ${next.prompt} cached, ${next.ms.toFixed(0)} ms (${ratio.toFixed(1)}× faster)`);
                assert.ok(next.cached >= 0.95 * shared, `${next.cached} of the ~${shared}-token shared prefix cached`);
                assert.ok(ratio >= 10, `first token ${ratio.toFixed(1)}× faster than cold (cold ${cold.ms.toFixed(0)} ms, `
                    + `after the restart ${next.ms.toFixed(0)} ms)`);
            } finally {
                await killHard(restarted);
            }
        });
    }

    it("Claude Code: a new session after a restart reads its system, tools and reminders from the saved state (source: disk)",
        async () => {
            const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-agent-restart-"));
            folders.push(dataDir);
            const first = await serve(model, dataDir, keyFile);
            try {
                await claudeCodeSession.first(first, key);
                await waitForStates(dataDir, 1);
            } finally {
                await killHard(first);
            }
            const restarted = await serve(model, dataDir, keyFile);
            try {
                const shared = await claudeCodeSharedPrefix(restarted, key);
                assert.ok(shared >= 1024,
                    `the shared prefix (${shared} tokens) is long enough to be saved (the prompt cache keeps 1,024 tokens and more)`);
                const session = await claudeCodeNewSession(restarted, key);
                console.log(`Claude Code, new session after kill -9: ${session.cached} of ${session.prompt} cached, `
                    + `${shared} shared, ${session.ms.toFixed(0)} ms`);
                assert.ok(session.cached >= 0.95 * shared, `${session.cached} of the ${shared}-token shared prefix cached`);
                const status = await fetch(`${restarted.url}/status`, {headers: {authorization: `Bearer ${key}`}});
                const {engine} = await status.json() as {engine: {prefix_reads: Record<string, {requests: number, tokens: number}>}};
                assert.deepEqual(engine.prefix_reads.disk, {requests: 1, tokens: session.cached}, "counted as read from disk");
            } finally {
                await killHard(restarted);
            }
        });
});
