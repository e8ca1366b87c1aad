/**
 * Watches the answer text as it streams and reports where a stop sequence (the operator's `--stop`, a request's `stop`)
 * begins.
 * Text that might be the start of a stop sequence is held back until the next chunk decides, so a client
 * never receives part of a stop sequence. Only the answer is watched: thoughts and tool-call arguments
 * never reach it, which is why this is done here rather than with node-llama-cpp's `customStopTriggers`
 * (those match all generated text, thoughts and calls included).
 */
export class StopSequenceDetector {
    private held = "";
    private matched: string | null = null;

    public constructor(private readonly sequences: readonly string[]) {}

    public get active(): boolean {
        return this.sequences.length > 0;
    }

    /** True once a stop sequence was seen; later text is ignored. */
    public get stopped(): boolean {
        return this.matched != null;
    }

    /** The stop sequence the text ended at (the earliest in the text), or null. */
    public get stoppedAt(): string | null {
        return this.matched;
    }

    /** Takes the next chunk of answer text; returns the part that is safe to publish now. */
    public push(text: string): string {
        if (this.matched != null)
            return "";
        const pending = this.held + text;
        let cut = -1;
        let matched: string | null = null;
        for (const sequence of this.sequences) {
            const index = pending.indexOf(sequence);
            if (index >= 0 && (cut < 0 || index < cut)) {
                cut = index;
                matched = sequence;
            }
        }
        if (cut >= 0) {
            this.matched = matched;
            this.held = "";
            return pending.slice(0, cut);
        }
        const keep = this.longestPossibleStart(pending);
        this.held = pending.slice(pending.length - keep);
        return pending.slice(0, pending.length - keep);
    }

    /** At the end of generation: text held back that turned out not to start a stop sequence. */
    public flush(): string {
        const rest = this.held;
        this.held = "";
        return rest;
    }

    /** Length of the longest suffix of `text` that is a proper prefix of some stop sequence. */
    private longestPossibleStart(text: string): number {
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
