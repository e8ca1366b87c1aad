import {clientKeyShellHint, clientKeyVariable} from "../clientKey.js";

/** The environment variable Codex reads the key from: the key itself never goes into config.toml. */
export const codexKeyVariable = clientKeyVariable;
export const codexProviderId = "local-responses";

export type CodexProvider = {
    endpoint: string,
    model: string,
    /** Context tokens a request may use (the loaded model's per sequence); unknown when no model is loaded. */
    contextWindow?: number
};

/**
 * Share of the context at which Codex compacts its history. Codex estimates tokens with its own tokenizer, not the
 * model's, and the answer needs room too: compacting at 80 % keeps a turn from being refused for its length.
 */
const autoCompactShare = 0.8;

/**
 * The top-level keys this provider sets: the provider and model, and, when the context is known, its window and the
 * size at which Codex compacts (Codex does not know a local model's window, and would otherwise send a history the
 * model cannot hold).
 */
export function codexTopLevelKeys(provider: CodexProvider): string[] {
    const keys = [`model_provider = "${codexProviderId}"`, `model = ${tomlString(provider.model)}`];
    if (provider.contextWindow != null)
        keys.push(`model_context_window = ${provider.contextWindow}`,
            `model_auto_compact_token_limit = ${Math.floor(provider.contextWindow * autoCompactShare)}`);
    return keys;
}

/** The `[model_providers.local-responses]` block for this endpoint. */
export function codexProviderBlock({endpoint}: CodexProvider): string {
    return [
        `[model_providers.${codexProviderId}]`,
        `name = "Local Responses"`,
        `base_url = ${tomlString(endpoint)}`,
        `env_key = "${codexKeyVariable}"`,
        `wire_api = "responses"`,
        ""
    ].join("\n");
}

/**
 * Writes this provider into an existing config.toml (or an empty one): the provider table is replaced
 * wholesale if present, and its top-level keys (`codexTopLevelKeys`) are set before the first table, where TOML
 * requires them. Everything else in the file is kept as it was (a context window already there stays when this
 * provider does not know one).
 */
export function mergeCodexConfig(existing: string, provider: CodexProvider): string {
    const lines = existing.replace(/\r\n/g, "\n").split("\n");
    const header = `[model_providers.${codexProviderId}]`;

    // Drop our table (from its header to the next table header).
    const kept: string[] = [];
    let inOurTable = false;
    for (const line of lines) {
        const trimmed = line.trim();
        if (/^\[.*\]$/.test(trimmed))
            inOurTable = trimmed === header;
        if (!inOurTable)
            kept.push(line);
    }

    // Top-level keys live before the first table header.
    const firstTable = kept.findIndex((line) => /^\s*\[/.test(line));
    const topEnd = firstTable < 0 ? kept.length : firstTable;
    const topKeys = codexTopLevelKeys(provider);
    const ownKeys = new Set(topKeys.map((line) => line.slice(0, line.indexOf(" ="))));
    const top = kept.slice(0, topEnd).filter((line) => !ownKeys.has(line.trim().split(/\s*=/)[0]!));
    const rest = kept.slice(topEnd);
    while (top.length > 0 && top.at(-1)!.trim() === "")
        top.pop();

    const parts = [[...top, ...topKeys].join("\n"), ""];
    const restText = rest.join("\n").trim();
    if (restText !== "")
        parts.push(restText, "");
    parts.push(codexProviderBlock(provider));
    return parts.join("\n");
}

/** The shell line a person runs before `codex`, naming the variable but not the key. */
export function codexShellHint(): string {
    return clientKeyShellHint();
}

function tomlString(value: string): string {
    return JSON.stringify(value);
}
