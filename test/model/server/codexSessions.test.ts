import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {codexCapture} from "../../helpers/agentSessions.js";
import {useTestServer, type TestServer} from "../../helpers/testServer.js";

const keyA = "sk-codex-alpha-0123456789";
const keyB = "sk-codex-bravo-9876543210";
const keyC = "sk-codex-charlie-5555555555";

/**
 * Codex's captured request, cut to fit stories260K's context: the opening of its developer instructions, its
 * environment context and its exec_command tool, each as sent. A sub-agent (Codex's `spawn_agent`) and a second `codex exec`
 * run send the same instructions and tools with a conversation of their own and a `prompt_cache_key` of their own (the
 * thread id); the main session's next turn sends its own key again.
 */
type InputItem = {type: "message", role: string, content: Array<{type: string, text: string}>};
const captured = codexCapture as unknown as {input: InputItem[], tools: Array<{name?: string}>, prompt_cache_key: string};
const [instructions, , environment] = captured.input;
const stableInput = [
    {...instructions!, content: [{type: "input_text", text: instructions!.content[0]!.text.slice(0, 1200)}]},
    environment!
];
const tools = captured.tools.filter((tool) => tool.name === "exec_command");

const mainSession = captured.prompt_cache_key;
const subagentThread = "01a227c3-1b2e-7c41-9f0a-3d2e5b6a7c81";
const secondExec = "01a227c9-44d0-7e12-8a3b-6f1c0d9e2b47";

type Turn = {role: "user" | "assistant", text: string};

function body(promptCacheKey: string, turns: Turn[]) {
    const conversation = turns.map(({role, text}) => ({
        type: "message", role, content: [{type: role === "user" ? "input_text" : "output_text", text}]
    }));
    return {
        ...codexCapture, input: [...stableInput, ...conversation], tools, prompt_cache_key: promptCacheKey,
        stream: false, max_output_tokens: 8, temperature: 0
    };
}

type Answer = {text: string, prompt: number, cached: number};

async function send(server: TestServer, key: string, request: object): Promise<Answer> {
    const response = await server.fetch("/v1/responses", {method: "POST", headers: {authorization: `Bearer ${key}`}, json: request});
    assert.equal(response.status, 200, await response.clone().text());
    const answer = await response.json() as {
        usage: {input_tokens: number, input_tokens_details: {cached_tokens: number}},
        output: Array<{type: string, content?: Array<{type: string, text?: string}>}>
    };
    const text = answer.output.flatMap((item) => item.content ?? []).map((part) => part.text ?? "").join("");
    return {text, prompt: answer.usage.input_tokens, cached: answer.usage.input_tokens_details.cached_tokens};
}

async function countTokens(server: TestServer, request: object): Promise<number> {
    const response = await server.fetch("/v1/responses/input_tokens", {method: "POST", json: request});
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json() as {input_tokens: number}).input_tokens;
}

type PrefixReads = Record<"same_sequence" | "other_sequence" | "disk", {requests: number, tokens: number}>;

async function prefixReads(server: TestServer): Promise<PrefixReads> {
    const response = await server.fetch("/v1/status");
    return (await response.json() as {engine: {prefix_reads: PrefixReads}}).engine.prefix_reads;
}

const firstTurn: Turn[] = [{role: "user", text: "Say hello"}];

describe("Codex's sessions share their instructions and tools prefix (real engine, stories260K, 2 sequences)", () => {
    const server = useTestServer({apiKeys: [keyA, keyB, keyC], contextSize: 4096, parallel: 2});

    it("the session keeps its sequence (prompt_cache_key); a sub-agent and a second exec session read ≥ 95% of the prefix "
        + "(the sub-agent's copied from the session's sequence); another key reads none; answers are the cold prompt's",
    async (t) => {
        // The shared prefix: the prompt up to the conversation (a one-character message adds only its own turn's tokens).
        const shared = await countTokens(server, body(mainSession, [{role: "user", text: "x"}])) - 8;
        assert.ok(shared > 1000, `a long prefix (${shared} tokens)`);

        const opened = await send(server, keyA, body(mainSession, firstTurn));
        assert.equal(opened.cached, 0, "a fresh server has nothing cached");
        const subagentTurns: Turn[] = [{role: "user", text: "Find the tests in this repository"}];
        const subagent = await send(server, keyA, body(subagentThread, subagentTurns));
        const afterSubagent = await prefixReads(server);
        const nextTurn = await send(server, keyA, body(mainSession,
            [...firstTurn, {role: "assistant", text: opened.text}, {role: "user", text: "Now open the README"}]));
        const afterNextTurn = await prefixReads(server);
        const execTurns: Turn[] = [{role: "user", text: "List the files here"}];
        const exec = await send(server, keyA, body(secondExec, execTurns));
        const shares = {subagent, nextTurn, exec};
        t.diagnostic(`shared prefix ${shared} tokens; cached: ${Object.entries(shares).map(([name, turn]) =>
            `${name} ${turn.cached} of ${turn.prompt}`).join(", ")}`);
        for (const [name, turn] of Object.entries(shares))
            assert.ok(turn.cached >= 0.95 * shared, `${name} read ${turn.cached} of the ${shared} shared tokens from the cache`);

        assert.equal(afterSubagent.other_sequence.requests, 1, "the sub-agent copied the prefix from the session's sequence");
        assert.equal(afterSubagent.other_sequence.tokens, subagent.cached);
        assert.equal(afterSubagent.same_sequence.requests, 0);
        assert.equal(afterNextTurn.same_sequence.requests, 1, "the session's next turn found its sequence as it left it");
        const firstPrompt = await countTokens(server, body(mainSession, firstTurn));
        assert.ok(nextTurn.cached >= firstPrompt - 8, `the next turn read its whole first turn (${nextTurn.cached} of ${firstPrompt})`);

        const coldSubagent = await send(server, keyB, body(subagentThread, subagentTurns));
        // A third key: key B's second prompt would read the prefix of its first.
        const coldExec = await send(server, keyC, body(secondExec, execTurns));
        assert.equal(coldSubagent.cached, 0, "another key reads nothing of key A's prefix");
        assert.equal(coldExec.cached, 0);
        assert.equal(coldSubagent.prompt, subagent.prompt);
        assert.equal(subagent.text, coldSubagent.text, "the copied prefix answers as the cold prompt does");
        assert.equal(exec.text, coldExec.text, "the warm answer is the cold prompt's");

        // Each key's /metrics shows its own reads (keys share the server): key A's copy, none of the others'.
        const copiedTokens = async (key: string) => {
            const text = await (await server.fetch("/metrics", {headers: {authorization: `Bearer ${key}`}})).text();
            return Number(/^local_responses_prefix_read_tokens_total\{source="other_sequence"\} (\d+)$/m.exec(text)?.[1]);
        };
        assert.equal(await copiedTokens(keyA), (await prefixReads(server)).other_sequence.tokens);
        assert.ok(await copiedTokens(keyA) >= subagent.cached);
        assert.equal(await copiedTokens(keyB), 0);
    });
});
