export function time(seconds: number): string {
    return new Date(seconds * 1000).toLocaleString();
}

export function tokens(count: number | null): string {
    return count == null ? "–" : String(count);
}

/** Status bar text without its `$(icon)` codicon markers. */
export function plainStatus(text: string): string {
    return text.replace(/\$\([^)]*\)\s*/g, "").trim();
}
