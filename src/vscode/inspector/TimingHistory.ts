import type {GenerationSummary} from "../../engine/types.js";
import {responseTimings} from "../../responses/responseTimings.js";
import type {TimingSample} from "./shared/inspectorProtocol.js";
import {Emitter} from "../../protocol/Emitter.js";

/** Minutes of history the inspector's chart covers. */
export const timingWindowMs = 10 * 60_000;
const maxSamples = 2000;

/**
 * Time to first token, tokens/s and the cached share of the prompt of each finished generation over the last
 * minutes (and its model, where the engine serves several), for the inspector's live chart. Fed by the engine's
 * per-generation summaries (every generation, stored or not), computed by the same `responseTimings` as the stored records.
 */
export class TimingHistory {
    private readonly samples: TimingSample[] = [];
    private readonly changes = new Emitter<void>();

    public constructor(private readonly now: () => number = Date.now) {}

    public record(summary: GenerationSummary): void {
        const timings = responseTimings({
            acceptedAt: 0, startedAt: 0, endedAt: summary.durationMs, timeToFirstTokenMs: summary.timeToFirstTokenMs, usage: summary.usage
        });
        this.samples.push({
            at: this.now(),
            timeToFirstTokenMs: timings.timeToFirstTokenMs,
            outputTokensPerSecond: timings.outputTokensPerSecond,
            outputTokens: timings.outputTokens,
            inputTokens: timings.inputTokens,
            cachedTokens: timings.cachedTokens,
            model: summary.model ?? null
        });
        this.prune();
        this.changes.emit();
    }

    /** The samples of the window, oldest first. */
    public list(): TimingSample[] {
        this.prune();
        return [...this.samples];
    }

    public onChange(listener: () => void): () => void {
        return this.changes.on(listener);
    }

    private prune(): void {
        const oldest = this.now() - timingWindowMs;
        let drop = 0;
        while (drop < this.samples.length && (this.samples[drop]!.at < oldest || this.samples.length - drop > maxSamples))
            drop++;
        this.samples.splice(0, drop);
    }
}
