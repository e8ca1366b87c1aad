/**
 * Where the time of one response went, as a person debugging a slow agent turn asks it: how long it waited,
 * how long until its first token, how long it generated and how fast. Kept beside the stored record and the
 * background job (the editor's inspector reads it), never in the wire object sent to clients.
 */
export type ResponseTimings = {
    /**
     * Milliseconds from the request's acceptance to the start of its generation: waiting for a background worker
     * and for a free sequence, prompt rendering, and an automatic compaction's own generation when one ran.
     */
    queueWaitMs: number,
    /** Milliseconds from the start of generation to the first token: mostly prompt evaluation (null: no token came). */
    timeToFirstTokenMs: number | null,
    /** Milliseconds from the start of generation to its end. */
    generationMs: number,
    /** Output tokens after the first one, per second after the first one (null with fewer than two tokens). */
    outputTokensPerSecond: number | null,
    /** Prompt tokens evaluated (not cached) per second of time to first token (null when none were evaluated). */
    promptTokensPerSecond: number | null,
    inputTokens: number,
    cachedTokens: number,
    outputTokens: number,
    /** With speculative decoding: predicted tokens the model checked, and those it accepted (see `--speculative`). */
    draftedTokens?: number,
    acceptedTokens?: number
};
