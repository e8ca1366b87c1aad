import type {ResponseTimings} from "../protocol/timings.js";

export type TimingMarks = {
    /** `performance.now()` when the request was accepted. */
    acceptedAt: number,
    /** `performance.now()` when generation started. */
    startedAt: number,
    /** `performance.now()` when generation ended. */
    endedAt: number,
    timeToFirstTokenMs: number | null,
    usage: {inputTokens: number, cachedTokens: number, outputTokens: number, draftedTokens?: number, acceptedTokens?: number}
};

/** The timings of one generation from its marks; rates only where their time span is measurable. */
export function responseTimings(marks: TimingMarks): ResponseTimings {
    const generationMs = Math.max(0, marks.endedAt - marks.startedAt);
    const ttft = marks.timeToFirstTokenMs;
    const decodeMs = ttft == null ? 0 : generationMs - ttft;
    const evaluated = marks.usage.inputTokens - marks.usage.cachedTokens;
    return {
        queueWaitMs: Math.max(0, marks.startedAt - marks.acceptedAt),
        timeToFirstTokenMs: ttft,
        generationMs,
        outputTokensPerSecond: marks.usage.outputTokens >= 2 && decodeMs > 0 ? (marks.usage.outputTokens - 1) / (decodeMs / 1000) : null,
        promptTokensPerSecond: ttft != null && ttft > 0 && evaluated > 0 ? evaluated / (ttft / 1000) : null,
        inputTokens: marks.usage.inputTokens,
        cachedTokens: marks.usage.cachedTokens,
        outputTokens: marks.usage.outputTokens,
        ...marks.usage.draftedTokens != null && {draftedTokens: marks.usage.draftedTokens, acceptedTokens: marks.usage.acceptedTokens ?? 0}
    };
}
