import fs from "node:fs";
import path from "node:path";
import type {CliServer} from "./cliServer.js";
import {capturesDir, sharedDir} from "./paths.js";

/**
 * Codex's and Claude Code's captured first requests, and each agent's next turn (one more exchange), sent in the
 * agent's own protocol to a headless server: issue 39 item 1's test (test/model/server/agentRestart.test.ts) and
 * `npm run bench`'s figure 6 send the same turns.
 */
/** Codex's captured first request (its body). */
export const codexCapture = JSON.parse(fs.readFileSync(path.join(capturesDir, "codex-request.json"), "utf8")) as Record<string, unknown>;
/** The captured HTTP request of Claude Code (method, url, headers, body): its body. */
export const claudeCapture = (JSON.parse(fs.readFileSync(path.join(sharedDir, "reference/anthropic/claude-code-request.json"), "utf8")) as
    {body: Record<string, unknown>}).body;

/** An answer's prompt tokens, how many of them were cached, and the whole request's milliseconds (one output token). */
export type TurnTiming = {prompt: number, cached: number, ms: number};

/** One agent's two turns, each answered with one token as `key`. */
export type AgentSession = {
    name: string,
    first: (server: CliServer, key: string) => Promise<TurnTiming>,
    next: (server: CliServer, key: string) => Promise<TurnTiming>
};

async function post(server: CliServer, route: string, body: unknown,
    headers: Record<string, string>): Promise<{body: unknown, ms: number}> {
    const started = performance.now();
    const response = await fetch(`${server.url}${route}`, {
        method: "POST", headers: {"content-type": "application/json", ...headers}, body: JSON.stringify(body)
    });
    const text = await response.text();
    const ms = performance.now() - started;
    if (response.status !== 200)
        throw new Error(`${route} answered ${response.status}: ${text}`);
    return {body: JSON.parse(text), ms};
}

type ResponsesUsage = {usage: {input_tokens: number, input_tokens_details: {cached_tokens: number}}};
type MessagesUsage = {usage: {input_tokens: number, cache_read_input_tokens: number}};

async function responses(server: CliServer, key: string, input: unknown[]): Promise<TurnTiming> {
    // The captured body as Codex sends it (store: false), answered in one body: its time is the first token's, and one more.
    const {body, ms} = await post(server, "/responses", {...codexCapture, input, stream: false, max_output_tokens: 1, temperature: 0},
        {authorization: `Bearer ${key}`});
    const {usage} = body as ResponsesUsage;
    return {prompt: usage.input_tokens, cached: usage.input_tokens_details.cached_tokens, ms};
}

async function messages(server: CliServer, key: string, turns: unknown[]): Promise<TurnTiming> {
    const {body, ms} = await post(server, "/messages", {...claudeCapture, messages: turns, stream: false, max_tokens: 1, temperature: 0},
        {"x-api-key": key, "anthropic-version": "2023-06-01"});
    const {usage} = body as MessagesUsage;
    return {prompt: usage.input_tokens + usage.cache_read_input_tokens, cached: usage.cache_read_input_tokens, ms};
}

const nextTurnText = {answer: "I will look at the files first.", question: "Now open the README and summarize it."};

export const codexSession: AgentSession = {
    name: "Codex",
    first: (server, key) => responses(server, key, codexCapture.input as unknown[]),
    next: (server, key) => responses(server, key, [...codexCapture.input as unknown[],
        {type: "message", role: "assistant", content: [{type: "output_text", text: nextTurnText.answer}]},
        {type: "message", role: "user", content: [{type: "input_text", text: nextTurnText.question}]}])
};

export const claudeCodeSession: AgentSession = {
    name: "Claude Code",
    first: (server, key) => messages(server, key, claudeCapture.messages as unknown[]),
    next: (server, key) => messages(server, key, [...claudeCapture.messages as unknown[],
        {role: "assistant", content: [{type: "text", text: nextTurnText.answer}]},
        {role: "user", content: [{type: "text", text: nextTurnText.question}]}])
};

export type ClaudeMessage = {role: string, content: Array<{type: string, text?: string}>};

/** Claude Code's first message with its typed text (the last block, after the system reminders) replaced. */
export function claudeOpening(text: string): ClaudeMessage[] {
    const [first, ...rest] = claudeCapture.messages as ClaudeMessage[];
    return [{...first!, content: [...first!.content.slice(0, -1), {type: "text", text}]}, ...rest];
}

/**
 * A new Claude Code session: the same system, tools and reminders, another first request. What it shares with the
 * captured session is the prompt up to the typed text: `claudeCodeSharedPrefix` counts it.
 */
export const claudeCodeNewSession = (server: CliServer, key: string): Promise<TurnTiming> =>
    messages(server, key, claudeOpening("List the files here"));

/** The tokens a new session shares with the captured one: a prompt that ends at the typed text, less its last turn's few. */
export async function claudeCodeSharedPrefix(server: CliServer, key: string): Promise<number> {
    const response = await fetch(`${server.url}/messages/count_tokens`, {
        method: "POST", headers: {"content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01"},
        body: JSON.stringify({...claudeCapture, messages: claudeOpening("x").slice(0, 1)})
    });
    return (await response.json() as {input_tokens: number}).input_tokens - 8;
}

/** `kill -9`: nothing is flushed or closed; what is on disk is what the answers left there. */
export async function killHard(server: CliServer): Promise<void> {
    if (server.child.exitCode != null)
        return;
    const exited = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGKILL");
    await exited;
}
