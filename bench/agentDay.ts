import {agentBodies, ccSession, ccSubagent, claudeTurn, codexMessage, codexOpening, codexThread, type AgentBodies,
    type CaptureCut} from "../test/helpers/agentBodies.js";
import {claudeCapture, claudeOpening, type ClaudeMessage} from "../test/helpers/agentSessions.js";
import type {CliServer} from "../test/helpers/cliServer.js";
import {sseData} from "./sseData.js";

/**
 * An agent day (issue 54's benchmark), replayed from the captured requests of Claude Code
 * (`../shared/reference/anthropic/`) and Codex (`../shared/reference/captures/`) with their whole system prompts and
 * tools, varied the way each client varies them: Claude Code's attribution line per session (`cc_version` suffix) and
 * per subagent (`cc_is_subagent=true`), Codex's `prompt_cache_key` per thread. Every request streams, as both clients do.
 */

type Route = "/messages" | "/responses";

/**
 * A streamed answer: time to its first token (any delta; the stream's end where none came), its prompt and cached
 * tokens, its text, and when it was sent and ended (`performance.now()`: whether two requests overlapped).
 */
export type Answer = {ttftMs: number, prompt: number, cached: number, text: string, sentAt: number, endedAt: number};

/** One request of the day as sent, to be sent again cold with another key, and the shared prefix it could read. */
export type DayRequest = {name: string, route: Route, body: Record<string, unknown>, shared: number, answer: Answer};

function headers(route: Route, key: string): Record<string, string> {
    return route === "/messages"
        ? {"content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01"}
        : {"content-type": "application/json", authorization: `Bearer ${key}`};
}

/** Sends one streamed request; `onFirstToken` runs when its first delta arrives (the next request of a concurrent pair). */
export async function streamRequest(server: CliServer, key: string, route: Route, body: Record<string, unknown>,
    onFirstToken?: () => void): Promise<Answer> {
    const started = performance.now();
    const response = await fetch(`${server.url}${route}`, {method: "POST", headers: headers(route, key), body: JSON.stringify(body)});
    if (!response.ok)
        throw new Error(`${route} answered ${response.status}: ${await response.text()}`);
    let ttftMs: number | null = null;
    let usage: {prompt: number, cached: number} | null = null;
    let text = "";
    for await (const payload of sseData(response.body!)) {
        const event = payload as {type: string, delta?: string | {type: string, text?: string}, message?: {usage: MessagesUsage},
            response?: {usage: ResponsesUsage}, error?: unknown};
        if (event.type === "error" || event.type === "response.failed")
            throw new Error(`${route} failed: ${JSON.stringify(event)}`);
        if (ttftMs == null && event.type.endsWith("delta") && event.type !== "message_delta") {
            ttftMs = performance.now() - started;
            onFirstToken?.();
            onFirstToken = undefined;
        }
        if (event.type === "content_block_delta" && typeof event.delta === "object" && event.delta.type === "text_delta")
            text += event.delta.text;
        if (event.type === "response.output_text.delta" && typeof event.delta === "string")
            text += event.delta;
        if (event.type === "message_start") {
            const {input_tokens: uncached, cache_read_input_tokens: cached} = event.message!.usage;
            usage = {prompt: uncached + cached, cached};
        }
        if (event.type === "response.completed" || event.type === "response.incomplete") {
            const {input_tokens: prompt, input_tokens_details: {cached_tokens: cached}} = event.response!.usage;
            usage = {prompt, cached};
        }
    }
    const endedAt = performance.now();
    ttftMs ??= endedAt - started;
    onFirstToken?.();
    if (usage == null)
        throw new Error(`${route}: no usage in the stream`);
    return {ttftMs, ...usage, text, sentAt: started, endedAt};
}

type MessagesUsage = {input_tokens: number, cache_read_input_tokens: number};
type ResponsesUsage = {input_tokens: number, input_tokens_details: {cached_tokens: number}};

/**
 * How much of the captures a day sends: `full`, everything as captured (~8,200 shared tokens of Claude Code's, ~6,300 of
 * Codex's on the qwen2 vocabulary: a cold prompt takes minutes on 2 busy cores), or `medium`: Claude Code's six
 * smallest tools of twelve (Agent, Workflow, ScheduleWakeup, ListAgents, ReportFindings left out), Codex's instructions
 * cut to their first 8,000 characters and its skills list left out; each request otherwise as sent.
 */
export type DaySize = "full" | "medium";
const cuts: Record<DaySize, CaptureCut> = {
    full: {claudeTools: "all", codexTools: "all", codexSkills: true},
    medium: {
        claudeTools: ["Bash", "Edit", "Read", "Write", "Skill", "ToolSearch"], codexTools: "all", codexInstructionsChars: 8000,
        codexSkills: false
    }
};

/** Tokens of a prompt, as the server would evaluate it (its count routes render what generation renders). */
async function countTokens(server: CliServer, key: string, route: Route, body: Record<string, unknown>): Promise<number> {
    const countRoute = route === "/messages" ? "/messages/count_tokens" : "/responses/input_tokens";
    const response = await fetch(`${server.url}${countRoute}`, {method: "POST", headers: headers(route, key), body: JSON.stringify(body)});
    if (!response.ok)
        throw new Error(`${countRoute} answered ${response.status}: ${await response.text()}`);
    return (await response.json() as {input_tokens: number}).input_tokens;
}

/**
 * The prompt tokens every request of an agent shares (Claude Code's system and tools, Codex's instructions, environment
 * and tools): a prompt of one one-character message, less that turn's few tokens (8, as the cache tests count it).
 * Claude Code's sessions share more (the reminders its first message opens with); its subagents send none.
 */
async function sharedPrefixes(server: CliServer, key: string, bodies: AgentBodies): Promise<{claude: number, codex: number}> {
    const claude = await countTokens(server, key, "/messages", bodies.claude(ccSession("b7f"), [claudeTurn("user", "x")], 1));
    const codex = await countTokens(server, key, "/responses", bodies.codex("count", [codexMessage("user", "x")], 1));
    return {claude: claude - 8, codex: codex - 8};
}

/** Output tokens of an ordinary turn; the main turn a subagent starts beside generates longer, so that it still generates. */
const turnTokens = 16;
const longTurnTokens = 160;

/**
 * The day, in order, as `key`: Claude Code's main session (its captured first turn), a subagent after it, the main
 * session's second turn with a second subagent started at its first token (while it generates), a second Claude Code
 * session; then a Codex session (its captured first turn), a sub-agent of it (its own thread id), the session's second
 * turn. Each turn sends back what the model answered before, as the clients do. `afterEach` runs once a request is
 * answered, before the next one is sent (the request beside the main turn's excepted: that turn goes on meanwhile).
 */
export async function runAgentDay(server: CliServer, key: string, size: DaySize, log: (line: string) => void,
    afterEach: (request: DayRequest, index: number) => Promise<void>): Promise<DayRequest[]> {
    const bodies = agentBodies(cuts[size], true);
    const claudeBody = bodies.claude;
    const codexBody = bodies.codex;
    const shared = await sharedPrefixes(server, key, bodies);
    log(`shared prefixes: Claude Code ${shared.claude} tokens, Codex ${shared.codex}`);
    const day: DayRequest[] = [];
    const send = async (name: string, route: Route, body: Record<string, unknown>, onFirstToken?: () => void) => {
        const answer = await streamRequest(server, key, route, body, onFirstToken);
        const request = {name, route, body, shared: route === "/messages" ? shared.claude : shared.codex, answer};
        day.push(request);
        log(`${name}: ${answer.cached} of ${answer.prompt} cached, first token ${answer.ttftMs.toFixed(0)} ms`);
        await afterEach(request, day.length - 1);
        return answer;
    };

    const mainOpening = claudeCapture.messages as ClaudeMessage[];
    const main1 = await send("Claude Code main, turn 1", "/messages", claudeBody(ccSession("b7f"), mainOpening, turnTokens));
    const subagent = ccSubagent("b7f");
    await send("Claude Code subagent after the turn", "/messages",
        claudeBody(subagent, [claudeTurn("user", "Find the tests of this repository and list their folders.")], turnTokens));
    const main2Messages = [...mainOpening, claudeTurn("assistant", main1.text || "Hello."),
        claudeTurn("user", "Now read the README and summarize how the project is built.")];
    let besideMain: Promise<Answer> | undefined;
    const startSubagent = () => {
        besideMain = send("Claude Code subagent while main generates", "/messages",
            claudeBody(subagent, [claudeTurn("user", "Search the sources for TODO comments and count them.")], turnTokens));
    };
    const main2 = send("Claude Code main, turn 2", "/messages", claudeBody(ccSession("b7f"), main2Messages, longTurnTokens), startSubagent);
    await Promise.all([main2, main2.then(() => besideMain)]);
    await send("Claude Code second session", "/messages", claudeBody(ccSession("e02"), claudeOpening("List the files here"), turnTokens));

    const codex1 = await send("Codex session, turn 1", "/responses", codexBody(codexThread, [codexOpening], turnTokens));
    await send("Codex sub-agent", "/responses", codexBody("01a227c3-1b2e-7c41-9f0a-3d2e5b6a7c81",
        [codexMessage("user", "Find the tests of this repository and list their folders.")], turnTokens));
    await send("Codex session, turn 2", "/responses", codexBody(codexThread, [codexOpening,
        codexMessage("assistant", codex1.text || "Hello."), codexMessage("user", "Now open the README and summarize it.")], turnTokens));
    return day;
}
