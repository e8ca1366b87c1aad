import {claudeCapture, codexCapture, type ClaudeMessage} from "./agentSessions.js";

/**
 * Requests of Claude Code's and Codex's sessions, subagents and sub-agents, built from their captured requests with
 * what each client varies from one to the next: Claude Code's attribution line (a `cc_version` suffix per session,
 * `cc_is_subagent=true;` in a subagent, a `cch` nonce per request in older versions), Codex's `prompt_cache_key` (the
 * thread id). Issue 54's real-vocabulary tests and `npm run bench:agents` send them.
 */

/**
 * How much of the captures the bodies carry before the conversation: every tool, or those named (Claude Code's and
 * Codex's), Claude Code's system prompt and Codex's instructions whole or their first characters, Codex's skills list or not.
 */
export type CaptureCut = {
    claudeTools: readonly string[] | "all", codexTools: readonly string[] | "all", claudeSystemChars?: number,
    codexInstructionsChars?: number, codexSkills: boolean
};

export const attribution = (fields: string) => ({type: "text", text: `x-anthropic-billing-header: ${fields}`});
/** The attribution fields of a Claude Code session (`suffix`: what differs from one launch to the next). */
export const ccSession = (suffix: string) => `cc_version=2.1.328.${suffix}; cc_entrypoint=cli;`;
export const ccSubagent = (suffix: string) => `${ccSession(suffix)} cc_is_subagent=true;`;

export type CodexItem = {type: string, role: string, content: Array<{type: string, text: string}>};
export const codexMessage = (role: "user" | "assistant", text: string): CodexItem =>
    ({type: "message", role, content: [{type: role === "user" ? "input_text" : "output_text", text}]});
export const claudeTurn = (role: "user" | "assistant", text: string): ClaudeMessage => ({role, content: [{type: "text", text}]});

const claudeSystem = claudeCapture.system as Array<{type: "text", text: string}>;
const codexInput = codexCapture.input as CodexItem[];
/** Codex's captured opening message (what its user typed). */
export const codexOpening = codexInput.at(-1)!;
/** The thread id of Codex's captured session. */
export const codexThread = codexCapture.prompt_cache_key as string;

function named<T extends {name?: string}>(all: T[], names: readonly string[] | "all"): T[] {
    return names === "all" ? all : all.filter((tool) => tool.name != null && names.includes(tool.name));
}

/** Body builders for one cut: Claude Code's Messages and Codex's Responses, streamed or not, greedy. */
export function agentBodies(cut: CaptureCut, stream: boolean) {
    const claudeTools = named(claudeCapture.tools as Array<{name: string}>, cut.claudeTools);
    const [, identity, mainPrompt] = claudeSystem;
    const system = [identity!, {...mainPrompt!, text: mainPrompt!.text.slice(0, cut.claudeSystemChars)}];
    const codexTools = named(codexCapture.tools as Array<{name?: string}>, cut.codexTools);
    // Codex's instructions, skills and environment context: what every thread of a workspace sends before its conversation.
    const [instructions, skills, environment] = codexInput;
    const instructionsText = instructions!.content[0]!.text.slice(0, cut.codexInstructionsChars);
    const codexStable = [
        {...instructions!, content: [{...instructions!.content[0]!, text: instructionsText}]},
        ...cut.codexSkills ? [skills!] : [], environment!
    ];
    return {
        claude: (attributionFields: string, messages: ClaudeMessage[], maxTokens: number): Record<string, unknown> => ({
            ...claudeCapture, system: [attribution(attributionFields), ...system], tools: claudeTools, messages,
            stream, max_tokens: maxTokens, temperature: 0
        }),
        codex: (promptCacheKey: string, conversation: CodexItem[], maxTokens: number): Record<string, unknown> => ({
            ...codexCapture, input: [...codexStable, ...conversation], tools: codexTools, prompt_cache_key: promptCacheKey,
            stream, max_output_tokens: maxTokens, temperature: 0
        })
    };
}
export type AgentBodies = ReturnType<typeof agentBodies>;
