import type {TimingSample} from "./inspectorProtocol.js";
import {formatCachedShare, formatDuration, formatPerSecond} from "./timingFormat.js";

/** The share of a sample's prompt read from the cache, 0 to 1; null for an empty prompt. */
export function cachedShare(sample: TimingSample): number | null {
    return sample.inputTokens > 0 ? sample.cachedTokens / sample.inputTokens : null;
}

/**
 * The chart in words (what a screen reader reads, and what the chart's label says): count, medians (time to first
 * token, tokens/s, the prompt's cached share), the last one; with
 * more than one model, the same per model (a small model's rate and a large one's make no useful median together).
 */
export function describeTimingSamples(samples: readonly TimingSample[], minutes: number): string {
    if (samples.length === 0)
        return `No responses in the last ${minutes} minutes.`;
    const last = samples.at(-1)!;
    const ttft = median(samples.map((sample) => sample.timeToFirstTokenMs));
    const rate = median(samples.map((sample) => sample.outputTokensPerSecond));
    const share = median(samples.map(cachedShare));
    const medianShare = share == null ? "" : `, median ${formatCachedShare(share, 1)} of the prompt cached`;
    const lastShare = formatCachedShare(last.cachedTokens, last.inputTokens);
    const models = timingsByModel(samples);
    const perModel = models.map((model) => `${model.model}, ${responses(model.count)}, `
        + `median ${formatDuration(model.timeToFirstTokenMs)} to first token, ${formatPerSecond(model.outputTokensPerSecond)}`);
    const byModel = models.length > 1 ? ` By model: ${perModel.join("; ")}.` : "";
    const lastModel = models.length > 1 && last.model != null ? ` (${last.model})` : "";
    return `${responses(samples.length)} in the last ${minutes} minutes: ` +
        `median time to first token ${formatDuration(ttft)}, ` +
        `median ${formatPerSecond(rate)}${medianShare}; last${lastModel} ${formatDuration(last.timeToFirstTokenMs)}, ` +
        `${formatPerSecond(last.outputTokensPerSecond)}${lastShare == null ? "" : `, ${lastShare} cached`}.${byModel}`;
}

export type ModelTimings = {model: string, count: number, timeToFirstTokenMs: number | null, outputTokensPerSecond: number | null};

/** Count and medians per model, by name; samples without a model (an engine with one) count as "unnamed model". */
export function timingsByModel(samples: readonly TimingSample[]): ModelTimings[] {
    const groups = new Map<string, TimingSample[]>();
    for (const sample of samples) {
        const model = sample.model ?? "unnamed model";
        const group = groups.get(model);
        if (group == null)
            groups.set(model, [sample]);
        else
            group.push(sample);
    }
    return [...groups].sort(([a], [b]) => a.localeCompare(b)).map(([model, group]) => ({
        model, count: group.length,
        timeToFirstTokenMs: median(group.map((sample) => sample.timeToFirstTokenMs)),
        outputTokensPerSecond: median(group.map((sample) => sample.outputTokensPerSecond))
    }));
}

function responses(count: number): string {
    return `${count} response${count === 1 ? "" : "s"}`;
}

export function median(values: readonly (number | null)[]): number | null {
    const known = values.filter((value): value is number => value != null).sort((a, b) => a - b);
    if (known.length === 0)
        return null;
    const middle = Math.floor(known.length / 2);
    return known.length % 2 === 1 ? known[middle]! : (known[middle - 1]! + known[middle]!) / 2;
}

/** uPlot's aligned data: x in seconds, then tokens/s, time to first token and the cached share in % (null leaves a gap). */
export function chartData(samples: readonly TimingSample[]): [number[], (number | null)[], (number | null)[], (number | null)[]] {
    return [
        samples.map((sample) => sample.at / 1000),
        samples.map((sample) => sample.outputTokensPerSecond == null ? null : Math.round(sample.outputTokensPerSecond * 10) / 10),
        samples.map((sample) => sample.timeToFirstTokenMs == null ? null : Math.round(sample.timeToFirstTokenMs)),
        samples.map((sample) => {
            const share = cachedShare(sample);
            return share == null ? null : Math.round(share * 1000) / 10;
        })
    ];
}
