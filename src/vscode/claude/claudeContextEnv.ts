/**
 * The `env` entries that tell Claude Code (read in its 2.1.328 binary) how much context the served model has. With a
 * model name it does not know it assumes a 1M-token window, so it would never compact and would send prompts the
 * server must refuse: `CLAUDE_CODE_MAX_CONTEXT_TOKENS` is the window it takes for such a model, and
 * `CLAUDE_CODE_AUTO_COMPACT_WINDOW` the size it compacts the conversation near (capped by that window).
 */
export const contextWindowVariables = ["CLAUDE_CODE_MAX_CONTEXT_TOKENS", "CLAUDE_CODE_AUTO_COMPACT_WINDOW"] as const;

/**
 * `CLAUDE_CODE_ATTRIBUTION_HEADER=0` stops the `x-anthropic-billing-header` line Claude Code puts first in `system`
 * (the server leaves it out of the prompt anyway; without it the requests are also what the person reads in a log).
 */
const attributionSwitch = {CLAUDE_CODE_ATTRIBUTION_HEADER: "0"};

/** The entries for a model whose context per request is `contextWindow` tokens; none for the window when unknown. */
export function claudeContextEnv(contextWindow: number | undefined): Record<string, string> {
    if (contextWindow == null)
        return attributionSwitch;
    const window = String(contextWindow);
    return {...attributionSwitch, ...Object.fromEntries(contextWindowVariables.map((name) => [name, window]))};
}
