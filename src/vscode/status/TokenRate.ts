/**
 * Tokens per second over a sliding window of (time, cumulative tokens) samples. A window rather than the
 * last two samples, because tokens arrive in bursts (prompt evaluation, then batched chunks).
 */
export class TokenRate {
    private readonly samples: {at: number, total: number}[] = [];

    public constructor(private readonly windowMs = 2000) {}

    /** Records the cumulative count of generated tokens at time `at` (milliseconds). */
    public record(at: number, total: number): void {
        this.samples.push({at, total});
        this.prune(at);
    }

    /** Tokens/s over the window ending at `at`; 0 when fewer than two samples or no time has passed. */
    public perSecond(at: number): number {
        this.prune(at);
        if (this.samples.length < 2)
            return 0;
        const first = this.samples[0]!;
        const last = this.samples.at(-1)!;
        const seconds = (at - first.at) / 1000;
        return seconds <= 0 ? 0 : (last.total - first.total) / seconds;
    }

    public reset(): void {
        this.samples.length = 0;
    }

    private prune(at: number): void {
        // Keep one sample older than the window as the baseline.
        while (this.samples.length > 2 && this.samples[1]!.at < at - this.windowMs)
            this.samples.shift();
    }
}
