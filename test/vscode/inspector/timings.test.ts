import assert from "node:assert/strict";
import {test} from "node:test";
import type {GenerationSummary} from "../../../src/engine/types.js";
import {formatDuration, formatPerSecond, timingFacts} from "../../../src/vscode/inspector/shared/timingFormat.js";
import {TimingHistory, timingWindowMs} from "../../../src/vscode/inspector/TimingHistory.js";
import {chartData, describeTimingSamples, median, timingsByModel} from "../../../src/vscode/inspector/shared/timingSummary.js";

const summary = (durationMs: number, ttft: number | null, outputTokens: number, model?: string, cachedTokens = 0): GenerationSummary => ({
    stopReason: "stop", text: "", calls: [], durationMs, timeToFirstTokenMs: ttft,
    usage: {inputTokens: 20, cachedTokens, outputTokens, reasoningTokens: 0}, ...model != null && {model}
});
/** A chart point as the history makes it: 20 prompt tokens, `cachedTokens` of them read from the cache. */
const sample = (at: number, ttft: number, rate: number, model: string | null = null, cachedTokens = 0) =>
    ({at, timeToFirstTokenMs: ttft, outputTokensPerSecond: rate, outputTokens: 5, inputTokens: 20, cachedTokens, model});

test("durations and rates read at a glance", () => {
    assert.equal(formatDuration(null), "–");
    assert.equal(formatDuration(849.6), "850 ms");
    assert.equal(formatDuration(2345), "2.35 s");
    assert.equal(formatDuration(12_345), "12.3 s");
    assert.equal(formatDuration(185_000), "3 min 5 s");
    assert.equal(formatPerSecond(7.14), "7.1 tokens/s");
    assert.equal(formatPerSecond(1234.4), "1234 tokens/s");
    assert.deepEqual(timingFacts({queueWaitMs: 2, timeToFirstTokenMs: 120, generationMs: 500, outputTokensPerSecond: 20,
        promptTokensPerSecond: null, inputTokens: 8, cachedTokens: 2, outputTokens: 9}), [
        ["Queue wait", "2 ms"], ["Time to first token", "120 ms"], ["Generation time", "500 ms"], ["Output speed", "20.0 tokens/s"],
        ["Prompt evaluation", "–"], ["Cached input tokens", "2 of 8 (25%)"]
    ]);
});

test("the chart's history: each generation's TTFT, decode rate and cached share, only the last minutes, heard by listeners", () => {
    let now = 1_000_000;
    const history = new TimingHistory(() => now);
    let heard = 0;
    history.onChange(() => heard++);
    history.record(summary(1100, 100, 11, undefined, 19));
    now += 1000;
    history.record(summary(50, null, 0));
    assert.equal(heard, 2);
    assert.deepEqual(history.list(), [
        {at: 1_000_000, timeToFirstTokenMs: 100, outputTokensPerSecond: 10, outputTokens: 11, inputTokens: 20, cachedTokens: 19,
            model: null},
        {at: 1_001_000, timeToFirstTokenMs: null, outputTokensPerSecond: null, outputTokens: 0, inputTokens: 20, cachedTokens: 0,
            model: null}
    ]);
    assert.deepEqual(chartData(history.list()), [[1000, 1001], [10, null], [100, null], [95, 0]], "the cached share in %");
    now += timingWindowMs;
    assert.deepEqual(history.list().map((point) => point.at), [1_001_000], "older than the window: dropped");
    assert.deepEqual(chartData(history.list()), [[1001], [null], [null], [0]]);
});

test("the chart in words, with medians over the known values", () => {
    assert.equal(median([3, null, 1, 2]), 2);
    assert.equal(median([4, 1]), 2.5);
    assert.equal(median([null]), null);
    assert.equal(describeTimingSamples([], 10), "No responses in the last 10 minutes.");
    assert.equal(describeTimingSamples([sample(1, 100, 10), sample(2, 300, 30, null, 19)], 10),
        "2 responses in the last 10 minutes: median time to first token 200 ms, median 20.0 tokens/s, median 48% of the "
        + "prompt cached; last 300 ms, 30.0 tokens/s, 95% cached.");
    assert.equal(describeTimingSamples([sample(1, 100, 10, "coder", 20), sample(2, 300, 30, "coder", 20)], 10),
        "2 responses in the last 10 minutes: median time to first token 200 ms, median 20.0 tokens/s, median 100% of the "
        + "prompt cached; last 300 ms, 30.0 tokens/s, 100% cached.", "one model: no per-model part");
    assert.equal(describeTimingSamples([{...sample(1, 100, 10), inputTokens: 0}], 10),
        "1 response in the last 10 minutes: median time to first token 100 ms, median 10.0 tokens/s; last 100 ms, 10.0 tokens/s.",
        "an empty prompt has no cached share");
});

test("with several models, each sample names its model and the words give each model's medians", () => {
    const history = new TimingHistory(() => 5000);
    history.record(summary(1100, 100, 11, "coder"));
    history.record(summary(3000, 1000, 5, "big"));
    history.record(summary(1300, 300, 31, "coder", 10));
    const samples = history.list();
    assert.deepEqual(samples.map((sample) => sample.model), ["coder", "big", "coder"]);
    assert.deepEqual(timingsByModel(samples), [
        {model: "big", count: 1, timeToFirstTokenMs: 1000, outputTokensPerSecond: 2},
        {model: "coder", count: 2, timeToFirstTokenMs: 200, outputTokensPerSecond: 20}
    ]);
    assert.equal(describeTimingSamples(samples, 10),
        "3 responses in the last 10 minutes: median time to first token 300 ms, median 10.0 tokens/s, median 0% of the prompt "
        + "cached; last (coder) 300 ms, 30.0 tokens/s, 50% cached. By model: big, 1 response, median 1.00 s to first token, 2.0 tokens/s; "
        + "coder, 2 responses, median 200 ms to first token, 20.0 tokens/s.");
});
