/** Most recently used first, without duplicates, at most `limit` entries. */
export function rememberRecent(recent: readonly string[], used: string, limit = 10): string[] {
    return [used, ...recent.filter((entry) => entry !== used)].slice(0, limit);
}
