import assert from "node:assert/strict";
import {test} from "node:test";
import {formatCount, formatStatus, type StatusModel} from "../../src/vscode/logic/statusView.js";

const base: StatusModel = {
    server: "listening", engine: "ready", modelName: "stories260K", loadProgress: null, active: 0, tokensPerSecond: 0,
    endpoint: "http://127.0.0.1:8080/v1", totals: {inputTokens: 24, outputTokens: 312, cachedTokens: 3, generations: 1}, activeJobs: null, queueDepth: 0
};

test("the text says model and state: no model, loading with progress, ready, generating with tok/s, failed", () => {
    assert.equal(formatStatus({...base, engine: "unloaded", modelName: null, server: "stopped"}).text, "$(circle-slash) Local Responses: no model");
    const unloadedButListening = formatStatus({...base, engine: "unloaded", modelName: null});
    assert.equal(unloadedButListening.text, "$(circle-slash) Local Responses: no model (serving 503)");
    assert.match(unloadedButListening.tooltip, /Local Responses: no model loaded; requests get 503/);
    assert.match(formatStatus({...base, engine: "unloaded", modelName: null, server: "stopped"}).tooltip, /Local Responses: stopped/);
    assert.equal(formatStatus({...base, engine: "loading", loadProgress: 0.456}).text, "$(loading~spin) stories260K: loading 46%");
    assert.equal(formatStatus(base).text, "$(check) stories260K: ready");
    assert.equal(formatStatus({...base, server: "stopped"}).text, "$(debug-pause) stories260K: server stopped");
    assert.equal(formatStatus({...base, active: 1, tokensPerSecond: 612.4}).text, "$(pulse) stories260K: 612 tok/s");
    assert.equal(formatStatus({...base, active: 1, tokensPerSecond: 7.25}).text, "$(pulse) stories260K: 7.3 tok/s");
    const failed = formatStatus({...base, engine: "failed"});
    assert.equal(failed.state, "failed");
    assert.match(failed.text, /failed to load/);
});

test("the tooltip carries endpoint, tokens since start, cached tokens, jobs and queue depth", () => {
    const tooltip = formatStatus({...base, activeJobs: 2, queueDepth: 3}).tooltip;
    assert.match(tooltip, /Endpoint: http:\/\/127\.0\.0\.1:8080\/v1/);
    assert.match(tooltip, /Tokens since start: 24 in \/ 312 out \(1 responses\)/);
    assert.match(tooltip, /Cached input tokens: 3/);
    assert.match(tooltip, /Active jobs: 2/);
    assert.match(tooltip, /Queue depth: 3/);
    assert.match(formatStatus({...base, server: "stopped", endpoint: null}).tooltip, /Endpoint: not listening/);
    assert.match(formatStatus(base).tooltip, /Active jobs: n\/a/);
});

test("counts are compact", () => {
    assert.equal(formatCount(9999), "9999");
    assert.equal(formatCount(12_345), "12.3k");
    assert.equal(formatCount(2_500_000), "2.5M");
});
