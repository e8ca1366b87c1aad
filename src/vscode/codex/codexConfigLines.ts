/**
 * A line-by-line edit of config.toml that keeps the person's comments and layout: our table (its header to the next
 * header) is dropped, our top-level keys are taken out and set again just before the first table, and our table is
 * appended. It knows nothing of TOML strings, so a multi-line string holding a line that looks like a header or a key
 * can mislead it: `mergeCodexConfig` only uses its text when a TOML parser reads it back as exactly the merged
 * configuration, and writes the whole file with the TOML library otherwise.
 */
export function editCodexConfigLines(existing: string, topLevelLines: string[], providerBlock: string): string {
    const lines = existing.replace(/\r\n/g, "\n").split("\n");
    const kept: string[] = [];
    let inOurTable = false;
    for (const line of lines) {
        const header = /^\s*\[([^\]]*)\]\s*(#.*)?$/.exec(line);
        if (header != null)
            inOurTable = isOurTable(header[1]!);
        if (!inOurTable)
            kept.push(line);
    }

    // Top-level keys live before the first table header.
    const firstTable = kept.findIndex((line) => /^\s*\[/.test(line));
    const topEnd = firstTable < 0 ? kept.length : firstTable;
    const ownKeys = new Set(topLevelLines.map((line) => line.slice(0, line.indexOf(" ="))));
    const top = kept.slice(0, topEnd).filter((line) => !ownKeys.has(line.trim().split(/\s*=/)[0]!));
    const rest = kept.slice(topEnd);
    while (top.length > 0 && top.at(-1)!.trim() === "")
        top.pop();

    const parts = [[...top, ...topLevelLines].join("\n"), ""];
    const restText = rest.join("\n").trim();
    if (restText !== "")
        parts.push(restText, "");
    parts.push(providerBlock);
    return parts.join("\n");
}

/** `model_providers.local-responses`, with its parts bare or quoted and spaced as TOML allows. */
function isOurTable(name: string): boolean {
    return /^\s*model_providers\s*\.\s*(local-responses|"local-responses"|'local-responses')\s*$/.test(name);
}
