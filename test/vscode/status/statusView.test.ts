import assert from "node:assert/strict";
import {test} from "node:test";
import {PromptProgressTracker} from "../../../src/vscode/status/PromptProgressTracker.js";
import {formatCount, formatStatus, type StatusModel} from "../../../src/vscode/status/statusView.js";

const base: StatusModel = {
    server: "listening", engine: "ready", modelName: "stories260K", loadProgress: null, active: 0, tokensPerSecond: 0,
    endpoint: "http://127.0.0.1:8080/v1", totals: {inputTokens: 24, outputTokens: 312, cachedTokens: 3, generations: 1}, activeJobs: null, queueDepth: 0
};

test("the text says model and state: no model, loading with progress, ready, generating with tok/s, failed", () => {
    assert.equal(formatStatus({...base, engine: "unloaded", modelName: null, server: "stopped"}).text,
        "$(circle-slash) Local Responses: no model");
    const unloadedButListening = formatStatus({...base, engine: "unloaded", modelName: null});
    assert.equal(unloadedButListening.text, "$(circle-slash) Local Responses: no model (serving 503)");
    assert.match(unloadedButListening.tooltip, /Local Responses: no model loaded; requests get 503/);
    assert.match(formatStatus({...base, engine: "unloaded", modelName: null, server: "stopped"}).tooltip, /Local Responses: stopped/);
    assert.equal(formatStatus({...base, engine: "loading", loadProgress: 0.456}).text, "$(loading~spin) stories260K: loading 46%");
    assert.equal(formatStatus(base).text, "$(check) stories260K: ready");
    assert.equal(formatStatus({...base, server: "stopped"}).text, "$(debug-pause) stories260K: server stopped");
    // Seen in the editor after a restart, while a library's server was still opening: starting read as stopped.
    const starting = formatStatus({...base, modelName: null, library: {loaded: [], total: 2}, server: "starting"});
    assert.equal(starting.text, "$(loading~spin) 2 models: starting the server");
    assert.match(starting.tooltip, /server starting/);
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
    assert.match(formatStatus({...base, answeredBy: "upstream · qwen on gpu-a:8000"}).tooltip, /^Engine: upstream · qwen on gpu-a:8000$/m,
        "which engine and upstream model answer");
    assert.match(formatStatus({...base, chatFormat: "JinjaTemplate (no known family, tool calls only when forced)"}).tooltip,
        /^Chat format: JinjaTemplate \(no known family, tool calls only when forced\)$/m, "the inspector's status line shows it too");
    assert.doesNotMatch(tooltip, /Chat format/, "none without a local model's format");
});

test("counts are compact", () => {
    assert.equal(formatCount(9999), "9999");
    assert.equal(formatCount(12_345), "12.3k");
    assert.equal(formatCount(2_500_000), "2.5M");
});

test("a long prompt's evaluation shows as progress until tokens come; the tooltip keeps it while others generate", () => {
    const prompt = {evaluated: 4096, total: 12_700, responses: 1};
    const evaluating = formatStatus({...base, active: 1, tokensPerSecond: 0, prompt});
    assert.equal(evaluating.text, "$(sync~spin) stories260K: prompt 4096/12.7k tokens (32%)");
    assert.match(evaluating.tooltip, /Prompt evaluation: 4096 of 12700 tokens/);
    const alongside = formatStatus({...base, active: 2, tokensPerSecond: 30, prompt: {...prompt, responses: 2}});
    assert.equal(alongside.text, "$(pulse) stories260K: 30.0 tok/s");
    assert.match(alongside.tooltip, /Prompt evaluation: 4096 of 12700 tokens \(2 prompts\)/);
    assert.doesNotMatch(formatStatus(base).tooltip, /Prompt evaluation/);
});

test("the tracker sums the prompts being evaluated and lets one go when it is reported all in", () => {
    const tracker = new PromptProgressTracker();
    assert.equal(tracker.view(), null);
    tracker.record("a", {evaluated: 0, total: 1000, reused: 0});
    tracker.record("b", {evaluated: 300, total: 500, reused: 300});
    tracker.record("a", {evaluated: 512, total: 1000, reused: 0});
    assert.deepEqual(tracker.view(), {evaluated: 812, total: 1500, responses: 2});
    // The engine's steps stop short of the end; the rest is evaluated with the first output token.
    tracker.record("b", {evaluated: 499, total: 500, reused: 300});
    assert.deepEqual(tracker.view(), {evaluated: 1011, total: 1500, responses: 2});
    tracker.record("b", {evaluated: 500, total: 500, reused: 300});
    assert.deepEqual(tracker.view(), {evaluated: 512, total: 1000, responses: 1});
    tracker.clear();
    assert.equal(tracker.view(), null);
});

test("with a model library: the model that answered last, every loaded one in the tooltip; none loaded says how many there are", () => {
    const library = formatStatus({...base, modelName: "coder", library: {loaded: ["coder", "small"], total: 3}});
    assert.equal(library.text, "$(check) coder: ready");
    assert.match(library.tooltip, /Models loaded: coder, small \(of 3 in the library; each loads when a request names it\)/);
    const idle = formatStatus({...base, modelName: null, library: {loaded: [], total: 3}});
    assert.equal(idle.text, "$(check) 3 models: ready");
    assert.match(idle.tooltip, /Models loaded: none \(of 3 in the library/);
    assert.doesNotMatch(library.tooltip, /Last response/, "none yet");
});

test("with a model library the tooltip's token stats say which model the last response came from", () => {
    const lastResponse = {model: "small", inputTokens: 12_345, outputTokens: 40};
    const tooltip = formatStatus({...base, modelName: "coder", library: {loaded: ["coder", "small"], total: 2}, lastResponse}).tooltip;
    assert.match(tooltip, /Tokens since start: 24 in \/ 312 out \(1 responses\)\nLast response: small, 12\.3k in \/ 40 out\n/);
    assert.doesNotMatch(formatStatus({...base, lastResponse}).tooltip, /Last response/, "one model: the status bar names it already");
    assert.doesNotMatch(formatStatus({...base, library: {loaded: [], total: 2}, lastResponse: {...lastResponse, model: null}}).tooltip,
        /Last response/, "no name reported");
});
