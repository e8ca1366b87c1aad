import type {ResponseTimings} from "../../../protocol/timings.js";

/** `850 ms`, `2.4 s`, `3 min 5 s`: a duration as a person reads it at a glance. */
export function formatDuration(ms: number | null): string {
    if (ms == null)
        return "–";
    if (ms < 1000)
        return `${Math.round(ms)} ms`;
    if (ms < 60_000)
        return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
    const seconds = Math.round(ms / 1000);
    return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

export function formatPerSecond(rate: number | null): string {
    if (rate == null)
        return "–";
    return `${rate >= 100 ? Math.round(rate) : rate.toFixed(1)} tokens/s`;
}

/** `95%`: the share of a prompt read from the cache; null for an empty prompt. */
export function formatCachedShare(cachedTokens: number, inputTokens: number): string | null {
    return inputTokens > 0 ? `${Math.round(cachedTokens / inputTokens * 100)}%` : null;
}

/** The timing facts of one response, label then value, in the order a person debugging a slow turn asks them. */
export function timingFacts(timings: ResponseTimings): [string, string][] {
    const share = formatCachedShare(timings.cachedTokens, timings.inputTokens);
    const cachedShare = share == null ? "" : ` (${share})`;
    return [
        ["Queue wait", formatDuration(timings.queueWaitMs)],
        ["Time to first token", formatDuration(timings.timeToFirstTokenMs)],
        ["Generation time", formatDuration(timings.generationMs)],
        ["Output speed", formatPerSecond(timings.outputTokensPerSecond)],
        ["Prompt evaluation", formatPerSecond(timings.promptTokensPerSecond)],
        ["Cached input tokens", `${timings.cachedTokens} of ${timings.inputTokens}${cachedShare}`]
    ];
}
