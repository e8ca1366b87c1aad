/** The environment variable Codex reads the key from: the key itself never goes into config.toml. */
export const codexKeyVariable = "LOCAL_RESPONSES_API_KEY";
export const codexProviderId = "local-responses";

export type CodexProvider = {endpoint: string, model: string};

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
 * wholesale if present, and `model_provider` / `model` are set at the top level, before the first table,
 * where TOML requires them. Everything else in the file is kept as it was.
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
    const top = kept.slice(0, topEnd).filter((line) => !/^\s*(model_provider|model)\s*=/.test(line));
    const rest = kept.slice(topEnd);
    while (top.length > 0 && top.at(-1)!.trim() === "")
        top.pop();
    const topKeys = [`model_provider = "${codexProviderId}"`, `model = ${tomlString(provider.model)}`];

    const parts = [[...top, ...topKeys].join("\n"), ""];
    const restText = rest.join("\n").trim();
    if (restText !== "")
        parts.push(restText, "");
    parts.push(codexProviderBlock(provider));
    return parts.join("\n");
}

/** The shell line a person runs before `codex`, naming the variable but not the key. */
export function codexShellHint(): string {
    return `export ${codexKeyVariable}="<paste the key from 'Local Responses: Copy API Key'>"`;
}

function tomlString(value: string): string {
    return JSON.stringify(value);
}
