import type {TimingSample} from "./inspectorProtocol.js";
import {formatDuration, formatPerSecond} from "./timingFormat.js";

/** The chart in words (what a screen reader reads, and what the chart's label says): count, medians, the last one. */
export function describeTimingSamples(samples: readonly TimingSample[], minutes: number): string {
    if (samples.length === 0)
        return `No responses in the last ${minutes} minutes.`;
    const last = samples.at(-1)!;
    const ttft = median(samples.map((sample) => sample.timeToFirstTokenMs));
    const rate = median(samples.map((sample) => sample.outputTokensPerSecond));
    return `${samples.length} response${samples.length === 1 ? "" : "s"} in the last ${minutes} minutes: ` +
        `median time to first token ${formatDuration(ttft)}, ` +
        `median ${formatPerSecond(rate)}; last ${formatDuration(last.timeToFirstTokenMs)}, ${formatPerSecond(last.outputTokensPerSecond)}.`;
}

export function median(values: readonly (number | null)[]): number | null {
    const known = values.filter((value): value is number => value != null).sort((a, b) => a - b);
    if (known.length === 0)
        return null;
    const middle = Math.floor(known.length / 2);
    return known.length % 2 === 1 ? known[middle]! : (known[middle - 1]! + known[middle]!) / 2;
}

/** uPlot's aligned data: x in seconds, then tokens/s and time to first token (null leaves a gap). */
export function chartData(samples: readonly TimingSample[]): [number[], (number | null)[], (number | null)[]] {
    return [
        samples.map((sample) => sample.at / 1000),
        samples.map((sample) => sample.outputTokensPerSecond == null ? null : Math.round(sample.outputTokensPerSecond * 10) / 10),
        samples.map((sample) => sample.timeToFirstTokenMs == null ? null : Math.round(sample.timeToFirstTokenMs))
    ];
}
