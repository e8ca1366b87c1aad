/**
 * Cuts streamed answer text at the first of `stop_sequences`: text is released as it comes, except a tail that may
 * still grow into a stop sequence, which is held until the next delta decides it. The stop sequence itself and
 * everything after it are never released.
 */
export class StopSequenceCut {
    private held = "";
    private matched: string | null = null;

    public constructor(private readonly sequences: readonly string[]) {}

    /** The stop sequence the text ended at, or null. */
    public get stoppedAt(): string | null {
        return this.matched;
    }

    /** The part of `delta` (with what was held before it) that is now known to come before any stop sequence. */
    public push(delta: string): string {
        if (this.matched != null)
            return "";
        if (this.sequences.length === 0)
            return delta;
        const text = this.held + delta;
        let cut = -1;
        for (const sequence of this.sequences) {
            const at = text.indexOf(sequence);
            if (at >= 0 && (cut < 0 || at < cut)) {
                cut = at;
                this.matched = sequence;
            }
        }
        if (cut >= 0) {
            this.held = "";
            return text.slice(0, cut);
        }
        const keep = this.partialTail(text);
        this.held = text.slice(text.length - keep);
        return text.slice(0, text.length - keep);
    }

    /** What was held when the text ended without completing a stop sequence. */
    public flush(): string {
        const rest = this.held;
        this.held = "";
        return rest;
    }

    /** The length of the longest end of `text` that begins a stop sequence. */
    private partialTail(text: string): number {
        let longest = 0;
        for (const sequence of this.sequences)
            for (let length = Math.min(sequence.length - 1, text.length); length > longest; length--)
                if (text.endsWith(sequence.slice(0, length))) {
                    longest = length;
                    break;
                }
        return longest;
    }
}
