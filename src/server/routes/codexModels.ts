/**
 * What a served model tells Codex when it replaces Codex's own system prompt: Codex's prompt for an unknown model is
 * ~10k tokens of instructions for OpenAI's models; a local model is better served by a short one.
 */
const localInstructions = "You are a coding agent running in the user's terminal. Read the code before you change it, use "
    + "the tools you are given to inspect files and run commands, make small correct edits, and say briefly what you did.";

/**
 * One model in Codex's `GET /models?client_version=` shape (Codex 0.169: each field below is required, an entry missing
 * one makes Codex drop the whole list and keep its built-in one). `priority` orders Codex's picker; `apply_patch` is
 * offered as Codex's freeform tool, which this server constrains with its grammar.
 */
export function codexModelEntry(model: {id: string, context_window: number | null}, index: number): Record<string, unknown> {
    return {
        slug: model.id,
        display_name: model.id,
        description: "A local model served by Local Responses",
        supported_reasoning_levels: [],
        shell_type: "shell_command",
        visibility: "list",
        supported_in_api: true,
        priority: index + 1,
        base_instructions: localInstructions,
        support_verbosity: false,
        truncation_policy: {mode: "tokens", limit: 10_000},
        experimental_supported_tools: [],
        apply_patch_tool_type: "freeform",
        ...model.context_window != null && {context_window: model.context_window}
    };
}
