/**
 * The model names Claude Code sends, by the `env` variables it reads them from (read in Claude Code 2.1's CLI):
 * `ANTHROPIC_MODEL` for its main turns; for its small, fast requests (titles, summaries) `ANTHROPIC_SMALL_FAST_MODEL`
 * when set (deprecated, but still read first), else `ANTHROPIC_DEFAULT_HAIKU_MODEL`, so both are written, with the
 * same name; its `sonnet` and `opus` aliases (`/model opus`, a subagent's `model: sonnet`) from
 * `ANTHROPIC_DEFAULT_SONNET_MODEL` and `ANTHROPIC_DEFAULT_OPUS_MODEL`.
 */
export type ClaudeModels = {
    main: string,
    /** The model for the small, fast requests. */
    small: string,
    /**
     * Whether a model library serves them. A library answers only the names it has (`404 model_not_found` otherwise),
     * so Claude Code's aliases are pinned to the main model too. With one model the block stays as it was before
     * libraries (that model answers any name, unless the server runs with `--strict-model`).
     */
    library: boolean
};

/** The `env` entries that name the models, in the order they are written. */
export function claudeModelEnv({main, small, library}: ClaudeModels): Record<string, string> {
    return {
        ANTHROPIC_MODEL: main,
        ...library && {ANTHROPIC_DEFAULT_SONNET_MODEL: main, ANTHROPIC_DEFAULT_OPUS_MODEL: main},
        ANTHROPIC_SMALL_FAST_MODEL: small,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: small
    };
}
