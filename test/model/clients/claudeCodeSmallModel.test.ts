import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {claudeModelEnv} from "../../../src/vscode/claude/claudeModelEnv.js";
import {startClaudeSession} from "../../helpers/claudeCli.js";
import {serveCli, type CliServer} from "../../helpers/cliServer.js";
import {skipUpstream} from "../../helpers/clientHarness.js";
import {models} from "../../helpers/paths.js";
import {RecordingProxy, type Exchange} from "../../helpers/recordingProxy.js";

const main = "stories260K";
const small = "stories260K-qwen";
const apiKey = "sk-claude-models";

/** The `model` of an answer: the `message_start` event's message in a stream, the body's otherwise. */
function answeredModel(exchange: Exchange): string | undefined {
    const start = exchange.body.split("\n").find((line) => line.startsWith("data: ") && line.includes("\"message_start\""));
    return (start == null ? JSON.parse(exchange.body) : JSON.parse(start.slice("data: ".length)).message).model;
}

/**
 * Claude Code 2.1.328 with two models of one library server, named as the editor's "Configure Claude Code…" writes
 * them (`claudeModelEnv`): the main model for its turns, the small, fast one for its side requests. What it sends to
 * the small one in a plain session is the session's title, asked for with the first prompt of an interactive session
 * (a Messages request whose `output_config.format` is a JSON schema of one `title`), and only when nonessential
 * traffic is allowed: `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` (and `CLAUDE_CODE_DISABLE_TERMINAL_TITLE`) turn titles
 * off, and `claude -p` asks for none (docs/models.md). The session runs under a pseudo-terminal (util-linux `script`)
 * with a one-line system prompt and no tools, so the main turn's prompt is ~700 tokens, not the default ~30k.
 */
describe("Claude Code's main and small models on one library server (interactive claude, real engine)", {
    skip: skipUpstream("the library serves local models only") || (process.platform !== "linux"
        && "the interactive session runs under util-linux script")
}, () => {
    let server: CliServer;
    let proxy: RecordingProxy;
    let root: string;
    before(async () => {
        root = fs.mkdtempSync(path.join(os.tmpdir(), "claude-models-"));
        const folder = path.join(root, "models");
        fs.mkdirSync(folder);
        for (const file of [models.chatml, models.qwen])
            fs.symlinkSync(file, path.join(folder, path.basename(file)));
        server = await serveCli(["--models-dir", folder, "--api-key", apiKey, "--store", "memory", "--data-dir", path.join(root, "data"),
            "--threads", "1", "--parallel", "1", "--context-size", "8192", "--stop", "."]);
        proxy = await RecordingProxy.start(new URL(server.url).origin);
    });
    after(async () => {
        await proxy?.close();
        server?.child.kill();
        fs.rmSync(root, {recursive: true, force: true});
    });

    /** The Messages exchanges of one session, until `done` holds for them (or two minutes pass). */
    async function session(env: Record<string, string>, prompt: string, done: (messages: Exchange[]) => boolean): Promise<Exchange[]> {
        const first = proxy.exchanges.length;
        const workDir = fs.mkdtempSync(path.join(root, "work-"));
        const claude = startClaudeSession(["--system-prompt", "You are a storyteller.", "--tools", "", "--", prompt], {
            cwd: workDir, baseUrl: proxy.origin, apiKey, env: {...claudeModelEnv({main, small, library: true}), ...env}
        });
        const messages = () => proxy.exchanges.slice(first).filter((exchange) => exchange.path.startsWith("/v1/messages"));
        const deadline = Date.now() + 120_000;
        while (!done(messages()) && Date.now() < deadline)
            await new Promise((resolve) => setTimeout(resolve, 250));
        const code = await claude.exit();
        const sent = messages().map(({requestBody, status}) => [requestBody?.model, status]);
        assert.ok(done(messages()), `the session's requests: ${JSON.stringify(sent)}\nits screen: ${claude.screen().slice(-2000)}`);
        assert.equal(code, 0, claude.screen().slice(-2000));
        return messages();
    }
    const answered = (messages: Exchange[], model: string) => messages.filter((exchange) => exchange.requestBody?.model === model
        && exchange.status === 200 && exchange.finished);
    const modelStatus = async (id: string) => (await (await fetch(`${server.url}/models/${id}`, {
        headers: {authorization: `Bearer ${apiKey}`}
    })).json() as {status: string}).status;

    it("with the editor's settings (nonessential traffic off) the session's requests all name the main model", async () => {
        const messages = await session({CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1"}, "Tell me a story about a dog.",
            (sent) => answered(sent, main).length > 0);
        // The title would be asked for before the main turn: once that turn is answered, none came.
        await new Promise((resolve) => setTimeout(resolve, 2000));
        assert.deepEqual(messages.filter((exchange) => exchange.requestBody?.model !== main), []);
        assert.equal(answeredModel(answered(messages, main)[0]!), main);
        assert.equal(await modelStatus(small), "unloaded");
    });

    it("with nonessential traffic allowed (telemetry off) the session's title goes to the small model, its turn to the main one",
        async () => {
            const messages = await session({DISABLE_TELEMETRY: "1", DISABLE_ERROR_REPORTING: "1", DISABLE_BUG_COMMAND: "1"},
                "Tell me a story about a cat.", (sent) => answered(sent, main).length > 0 && answered(sent, small).length > 0);
            const [turn] = answered(messages, main);
            const [title] = answered(messages, small);
            assert.equal(answeredModel(turn!), main);
            assert.equal(answeredModel(title!), small);
            assert.ok(title!.requestBody.output_config?.format?.schema?.properties?.title != null,
                `the small model's request asks for a title: ${JSON.stringify(title!.requestBody.output_config)}`);
            assert.match(JSON.stringify(title!.requestBody.messages), /Tell me a story about a cat/);
            assert.deepEqual([await modelStatus(main), await modelStatus(small)], ["loaded", "loaded"]);
        });
});
