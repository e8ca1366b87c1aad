import {Emitter} from "../../protocol/Emitter.js";

/** How one asked-for suggestion ended, as the provider saw it. */
export type SuggestionEnd =
    /** Handed to the editor to show as ghost text. */
    | "shown"
    /** The model's text left nothing worth showing (the line's end, or what follows the cursor already). */
    | "empty"
    /** The next keystroke (or the editor) cancelled it, before or while the model generated. */
    | "cancelled"
    /** The engine refused or failed. */
    | "failed";

export type SuggestionCounts = Record<SuggestionEnd | "accepted", number>;

/** Latencies kept for the median: the recent ones, as typing speed and the file change. */
const latencyWindow = 50;

/**
 * What the completion provider really did since the editor started: suggestions asked for and how each ended, how many
 * of the shown ones the person accepted (Tab), and how long shown ones took from the keystroke's quiet to the text.
 */
export class SuggestionStats {
    private readonly counts: SuggestionCounts = {shown: 0, empty: 0, cancelled: 0, failed: 0, accepted: 0};
    private readonly latencies: number[] = [];
    private readonly changes = new Emitter<void>();

    public ended(end: SuggestionEnd, latencyMs?: number): void {
        this.counts[end]++;
        if (end === "shown" && latencyMs != null) {
            this.latencies.push(latencyMs);
            if (this.latencies.length > latencyWindow)
                this.latencies.shift();
        }
        this.changes.emit();
    }

    public accepted(): void {
        this.counts.accepted++;
        this.changes.emit();
    }

    public get snapshot(): {counts: Readonly<SuggestionCounts>, lastLatencyMs: number | null, medianLatencyMs: number | null} {
        const sorted = [...this.latencies].sort((a, b) => a - b);
        return {
            counts: {...this.counts},
            lastLatencyMs: this.latencies.at(-1) ?? null,
            medianLatencyMs: sorted.length === 0 ? null : sorted[Math.floor((sorted.length - 1) / 2)]!
        };
    }

    public onChange(listener: () => void): () => void {
        return this.changes.on(listener);
    }

    public dispose(): void {
        this.changes.clear();
    }
}
