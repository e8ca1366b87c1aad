import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {claudeCapture} from "../../helpers/agentSessions.js";
import {useTestServer, type TestServer} from "../../helpers/testServer.js";

const keyA = "sk-claude-alpha-0123456789";
const keyB = "sk-claude-bravo-9876543210";

/**
 * Claude Code's captured request, cut to fit stories260K's context: its attribution line (here varied the way
 * Claude Code varies it), its identity block, the opening of its system prompt and two of its tools, each as sent.
 */
type CapturedBody = {system: Array<{type: "text", text: string}>, tools: Array<{name: string}>};
const captured = claudeCapture as unknown as CapturedBody;
const [, identity, mainPrompt] = captured.system;
const stableSystem = [identity!, {...mainPrompt!, text: mainPrompt!.text.slice(0, 1500)}];
const tools = captured.tools.filter((tool) => tool.name === "Edit" || tool.name === "Write");

const attribution = (fields: string) => ({type: "text", text: `x-anthropic-billing-header: ${fields}`});
const session = (suffix: string) => `cc_version=2.1.328.${suffix}; cc_entrypoint=cli;`;

type Turn = {role: "user" | "assistant", content: string};
type Usage = {input_tokens: number, cache_read_input_tokens: number};

function body(attributionFields: string, messages: Turn[]) {
    return {
        ...claudeCapture, system: [attribution(attributionFields), ...stableSystem], tools, messages,
        stream: false, max_tokens: 8, temperature: 0
    };
}

async function send(server: TestServer, key: string, request: object): Promise<{text: string, prompt: number, cached: number}> {
    const response = await server.fetch("/v1/messages", {
        method: "POST", headers: {"x-api-key": key, "anthropic-version": "2023-06-01"}, json: request
    });
    assert.equal(response.status, 200, await response.clone().text());
    const message = await response.json() as {usage: Usage, content: Array<{type: string, text?: string}>};
    const text = message.content.filter((block) => block.type === "text").map((block) => block.text).join("");
    const {input_tokens: uncached, cache_read_input_tokens: cached} = message.usage;
    return {text, prompt: uncached + cached, cached};
}

async function countTokens(server: TestServer, request: object): Promise<number> {
    const response = await server.fetch("/v1/messages/count_tokens",
        {method: "POST", headers: {"anthropic-version": "2023-06-01"}, json: request});
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json() as {input_tokens: number}).input_tokens;
}

const firstTurn: Turn[] = [{role: "user", content: "Say hello"}];

describe("Claude Code's sessions share their system and tools prefix (real engine, stories260K, 2 sequences)", () => {
    const server = useTestServer({apiKeys: [keyA, keyB], contextSize: 4096, parallel: 2});

    it("a new session, a subagent and a next turn whose cch changed read ≥ 95% of it; another key reads none, and the "
        + "answers are the cold prompt's", async (t) => {
        // The shared prefix: the prompt up to the first message (a one-character message adds only its own turn's tokens).
        const shared = await countTokens(server, body(session("b7f"), [{role: "user", content: "x"}])) - 8;
        assert.ok(shared > 1000, `a long prefix (${shared} tokens)`);

        const opened = await send(server, keyA, body(session("b7f"), firstTurn));
        const newSession = await send(server, keyA, body(session("e02"), [{role: "user", content: "List the files here"}]));
        const subagent = await send(server, keyA, body(`${session("e02")} cc_is_subagent=true;`,
            [{role: "user", content: "Find the tests"}]));
        const nextTurn = await send(server, keyA, body(`${session("b7f")} cch=9a0c1;`,
            [...firstTurn, {role: "assistant", content: opened.text}, {role: "user", content: "Now open the README"}]));
        const shares = {newSession, subagent, nextTurn};
        t.diagnostic(`shared prefix ${shared} tokens; cached: ${Object.entries(shares).map(([name, turn]) =>
            `${name} ${turn.cached} of ${turn.prompt}`).join(", ")}`);
        for (const [name, turn] of Object.entries(shares))
            assert.ok(turn.cached >= 0.95 * shared, `${name} read ${turn.cached} of the ${shared} shared tokens from the cache`);

        const cold = await send(server, keyB, body(session("e02"), [{role: "user", content: "List the files here"}]));
        assert.equal(cold.cached, 0, "another key reads nothing of key A's prefix");
        assert.equal(cold.prompt, newSession.prompt);
        assert.equal(newSession.text, cold.text, "the warm answer is the cold prompt's");
    });
});
