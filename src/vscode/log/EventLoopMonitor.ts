import {monitorEventLoopDelay, type IntervalHistogram} from "node:perf_hooks";
import type {ActivitySnapshot, GenerationActivity} from "../../engine/GenerationActivity.js";
import {formatDelayLine} from "./logLines.js";

/**
 * Measures the extension host's event-loop delay while the engine generates and logs one line per busy
 * period (from the first running generation to the last one ending). The engine evaluates on native threads;
 * this line is how a person (and the end-to-end test) checks that the editor stayed responsive meanwhile.
 */
export class EventLoopMonitor {
    private histogram: IntervalHistogram | undefined;
    private startedAt = 0;
    private tokensAtStart = 0;
    private readonly unsubscribe: () => void;

    public constructor(activity: GenerationActivity, private readonly log: (line: string) => void) {
        this.unsubscribe = activity.onChange((snapshot) => this.onActivity(snapshot));
    }

    private onActivity(snapshot: ActivitySnapshot): void {
        if (snapshot.active > 0 && this.histogram == null) {
            this.histogram = monitorEventLoopDelay({resolution: 10});
            this.histogram.enable();
            this.startedAt = performance.now();
            this.tokensAtStart = snapshot.generatedTokens;
        } else if (snapshot.active === 0 && this.histogram != null) {
            const histogram = this.histogram;
            this.histogram = undefined;
            histogram.disable();
            // A generation shorter than the 10 ms resolution leaves no sample: nothing to report (mean is NaN).
            if (histogram.count === 0)
                return;
            const ns = 1e6;
            this.log(formatDelayLine({
                samples: histogram.count,
                meanMs: histogram.mean / ns,
                p50Ms: histogram.percentile(50) / ns,
                p99Ms: histogram.percentile(99) / ns,
                maxMs: histogram.max / ns
            }, performance.now() - this.startedAt, snapshot.generatedTokens - this.tokensAtStart));
        }
    }

    public dispose(): void {
        this.unsubscribe();
        this.histogram?.disable();
    }
}
