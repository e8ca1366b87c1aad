import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {agentBodies, ccSession, ccSubagent, claudeTurn, codexMessage, codexThread} from "../../helpers/agentBodies.js";
import {killHard} from "../../helpers/agentSessions.js";
import {serveCli, type CliServer} from "../../helpers/cliServer.js";
import {syntheticModel} from "../../helpers/syntheticModel.js";

/**
 * Issue 54's cache cases on a real tokenizer: the two-layer synthetic body with Qwen2's vocabulary and template, served
 * as a user runs it (`dist/cli.js serve`, its durable store), with the opening of Claude Code's captured system prompt
 * and two of its tools, the opening of Codex's captured instructions, its environment and exec_command tool (prefixes
 * of 1,000-odd tokens, evaluated in seconds). (a) a new Claude Code
 * session, (b) a subagent after the main turn, (c) a subagent while the main turn generates, (d) a next turn whose
 * `cch` nonce changed, (e) a Codex sub-agent and a second `codex exec`: each reads ≥ 95 % of its agent's shared prefix;
 * the same request as another key reads nothing and answers the same (greedy).
 */
const cut = {
    claudeTools: ["Edit", "Write"], codexTools: ["exec_command"], claudeSystemChars: 3500, codexInstructionsChars: 3500, codexSkills: false
};
const bodies = agentBodies(cut, false);
const key = "sk-real-vocabulary-0123456789";
/** One key per cold request: a key's second cold request would read its first one's prefix. */
const coldKeys = Array.from({length: 8}, (_, index) => `sk-real-vocabulary-cold-${index}-0123456789`);

type Answer = {text: string, prompt: number, cached: number};

async function post(server: CliServer, route: string, key: string, body: unknown): Promise<Response> {
    const headers: Record<string, string> = route.startsWith("/messages")
        ? {"x-api-key": key, "anthropic-version": "2023-06-01"} : {authorization: `Bearer ${key}`};
    const response = await fetch(`${server.url}${route}`,
        {method: "POST", headers: {"content-type": "application/json", ...headers}, body: JSON.stringify(body)});
    assert.equal(response.status, 200, await response.clone().text());
    return response;
}

async function send(server: CliServer, key: string, body: Record<string, unknown>): Promise<Answer> {
    if ("messages" in body) {
        const message = await (await post(server, "/messages", key, body)).json() as {
            usage: {input_tokens: number, cache_read_input_tokens: number}, content: Array<{type: string, text?: string}>
        };
        const {input_tokens: uncached, cache_read_input_tokens: cached} = message.usage;
        return {text: message.content.map((block) => block.text ?? "").join(""), prompt: uncached + cached, cached};
    }
    const answer = await (await post(server, "/responses", key, body)).json() as {
        usage: {input_tokens: number, input_tokens_details: {cached_tokens: number}},
        output: Array<{content?: Array<{text?: string}>}>
    };
    const text = answer.output.flatMap((item) => item.content ?? []).map((part) => part.text ?? "").join("");
    return {text, prompt: answer.usage.input_tokens, cached: answer.usage.input_tokens_details.cached_tokens};
}

/** A prompt ending in a one-character message, less that turn's few tokens: what an agent's requests share. */
async function sharedPrefix(server: CliServer, body: Record<string, unknown>): Promise<number> {
    const route = "messages" in body ? "/messages/count_tokens" : "/responses/input_tokens";
    return (await (await post(server, route, key, body)).json() as {input_tokens: number}).input_tokens - 8;
}

/** Sends a streamed Claude Code turn and, at its first text, `beside`; whether the turn still streamed when `beside` was answered. */
async function besideStreamingTurn(server: CliServer, body: Record<string, unknown>,
    beside: () => Promise<Answer>): Promise<{answer: Answer, overlapped: boolean}> {
    const reader = (await post(server, "/messages", key, {...body, stream: true})).body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (!seen.includes("content_block_delta")) {
        const read = await reader.read();
        assert.ok(!read.done, `the turn ended before its first token: ${seen}`);
        seen += decoder.decode(read.value, {stream: true});
    }
    const answer = await beside();
    const read = await reader.read();
    const overlapped = !read.done && !decoder.decode(read.value).includes("message_stop");
    while (!(await reader.read()).done)
        ;
    return {answer, overlapped};
}

describe("agents' sessions share their prefix on a real tokenizer (Qwen2's vocabulary, dist/cli.js serve, durable store)", () => {
    let model: string;
    let keyFile: string;
    const folders: string[] = [];
    before(async () => {
        model = await syntheticModel("tiny-64", "qwen2");
        const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-real-vocabulary-keys-"));
        folders.push(keyDir);
        keyFile = path.join(keyDir, "keys");
        fs.writeFileSync(keyFile, [key, ...coldKeys].join("\n") + "\n", {mode: 0o600});
    });
    after(() => {
        for (const folder of folders)
            fs.rmSync(folder, {recursive: true, force: true});
    });

    for (const parallel of [2, 4]) {
        it(`${parallel} sequences: (a)–(e) each read ≥ 95 % of the shared prefix; another key reads none and answers the same`,
            async (t) => {
                const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-real-vocabulary-"));
                folders.push(dataDir);
                const server = await serveCli(["--model", model, "--api-key-file", keyFile, "--threads", "2",
                    "--parallel", String(parallel), "--context-size", "8192", "--data-dir", dataDir]);
                try {
                    await checkCases(server, t.diagnostic.bind(t));
                } finally {
                    await killHard(server);
                }
            });
    }
});

async function checkCases(server: CliServer, diagnostic: (line: string) => void): Promise<void> {
    const claudeShared = await sharedPrefix(server, bodies.claude(ccSession("b7f"), [claudeTurn("user", "x")], 1));
    const codexShared = await sharedPrefix(server, bodies.codex("count", [codexMessage("user", "x")], 1));
    assert.ok(claudeShared > 1000 && codexShared > 1000, `long prefixes (${claudeShared}, ${codexShared} tokens)`);

    const firstTurn = [claudeTurn("user", "Say hello")];
    const opened = await send(server, key, bodies.claude(ccSession("b7f"), firstTurn, 8));
    assert.equal(opened.cached, 0, "a fresh server has nothing cached");
    const cases: Record<string, {body: Record<string, unknown>, answer: Answer, shared: number}> = {};
    const warm = async (name: string, body: Record<string, unknown>, shared: number) =>
        (cases[name] = {body, answer: await send(server, key, body), shared}).answer;

    await warm("(a) new session", bodies.claude(ccSession("e02"), [claudeTurn("user", "List the files here")], 8), claudeShared);
    await warm("(b) subagent after the turn", bodies.claude(ccSubagent("b7f"), [claudeTurn("user", "Find the tests")], 8),
        claudeShared);
    const secondTurn = [...firstTurn, claudeTurn("assistant", opened.text), claudeTurn("user", "Now open the README")];
    const {overlapped} = await besideStreamingTurn(server, bodies.claude(ccSession("b7f"), secondTurn, 200),
        () => warm("(c) subagent while the main turn generates",
            bodies.claude(ccSubagent("b7f"), [claudeTurn("user", "Search for TODO comments")], 8), claudeShared));
    assert.ok(overlapped, "the main turn still generated when the subagent was answered");
    await warm("(d) next turn, new cch", bodies.claude(`${ccSession("b7f")} cch=9a0c1;`, secondTurn, 8), claudeShared);

    const opening = [codexMessage("user", "Say hello")];
    await send(server, key, bodies.codex(codexThread, opening, 8));
    await warm("(e) Codex sub-agent", bodies.codex("01a227c3-1b2e-7c41-9f0a-3d2e5b6a7c81",
        [codexMessage("user", "Find the tests in this repository")], 8), codexShared);
    await warm("(e) second codex exec", bodies.codex("01a227c9-44d0-7e12-8a3b-6f1c0d9e2b47",
        [codexMessage("user", "List the files here")], 8), codexShared);

    diagnostic(`shared prefixes: Claude Code ${claudeShared}, Codex ${codexShared} tokens; cached: ${Object.entries(cases).map(
        ([name, {answer}]) => `${name} ${answer.cached} of ${answer.prompt}`).join(", ")}`);
    for (const [index, [name, {body, answer, shared}]] of Object.entries(cases).entries()) {
        assert.ok(answer.cached >= 0.95 * shared, `${name} read ${answer.cached} of the ${shared} shared tokens from the cache`);
        const cold = await send(server, coldKeys[index]!, body);
        assert.equal(cold.cached, 0, `${name}: another key reads nothing of the day's prefix`);
        assert.equal(cold.prompt, answer.prompt);
        assert.equal(answer.text, cold.text, `${name}: the warm answer is the cold prompt's`);
    }
}
