export type DelaySummary = {samples: number, meanMs: number, p50Ms: number, p99Ms: number, maxMs: number};

export function formatDelayLine(summary: DelaySummary, durationMs: number, tokens: number): string {
    return `event loop delay during generation (${Math.round(durationMs)} ms, ${tokens} tokens): ` +
        `mean ${summary.meanMs.toFixed(2)} ms, p50 ${summary.p50Ms.toFixed(2)} ms, ` +
        `p99 ${summary.p99Ms.toFixed(2)} ms, max ${summary.maxMs.toFixed(2)} ms`;
}
