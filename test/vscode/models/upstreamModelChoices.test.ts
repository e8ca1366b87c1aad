import assert from "node:assert/strict";
import {test} from "node:test";
import type {UpstreamModelListing} from "../../../src/host/upstreamModels.js";
import {describeUpstreamChoice, noUpstreamModelReason, upstreamModelChoices} from "../../../src/vscode/models/upstreamModelChoices.js";
import type {ControllerState} from "../../../src/vscode/controller/controllerState.js";
import {serverRows} from "../../../src/vscode/sidebar/serverRows.js";
import {upstreamModelRows} from "../../../src/vscode/sidebar/upstreamModelRows.js";
import {formatStatus, type StatusModel} from "../../../src/vscode/status/statusView.js";

const gpuA: UpstreamModelListing = {url: "http://gpu-a:8000", models: ["qwen-7b", "qwen-32b"], error: null};
const gpuB: UpstreamModelListing = {url: "http://gpu-b:8000", models: ["qwen-32b", "llama-70b"], error: null};
const down: UpstreamModelListing = {url: "http://gpu-c:8000", models: [], error: "fetch failed: ECONNREFUSED: connect ECONNREFUSED 10.0.0.3:8000"};
const locked: UpstreamModelListing = {url: "http://gpu-d:8000", models: [], error: "GET /v1/models answered 401: Invalid API Key"};

test("Load Model… with the upstream engine: each listed model once with its upstreams, in listed order, the current one "
    + "first and marked", () => {
    const choices = upstreamModelChoices([gpuA, gpuB, down], "llama-70b");
    assert.deepEqual(choices, [
        {model: "llama-70b", upstreams: ["http://gpu-b:8000"], current: true},
        {model: "qwen-7b", upstreams: ["http://gpu-a:8000"], current: false},
        {model: "qwen-32b", upstreams: ["http://gpu-a:8000", "http://gpu-b:8000"], current: false}
    ]);
    assert.equal(describeUpstreamChoice(choices[0]!, true), "current · on http://gpu-b:8000");
    assert.equal(describeUpstreamChoice(choices[0]!, false), "configured, not connected · on http://gpu-b:8000");
    assert.equal(describeUpstreamChoice(choices[2]!, true), "on http://gpu-a:8000, http://gpu-b:8000");
    assert.equal(upstreamModelChoices([gpuA], "gone").some((choice) => choice.current), false,
        "a current model no upstream lists is not invented");
});

test("no upstream to pick from: the reason names each upstream and what it said", () => {
    assert.equal(noUpstreamModelReason([down, gpuA]), null, "one answering upstream is enough");
    assert.equal(noUpstreamModelReason([down, locked]),
        "No upstream answered GET /v1/models. http://gpu-c:8000: fetch failed: ECONNREFUSED: connect ECONNREFUSED 10.0.0.3:8000; http://gpu-d:8000: GET /v1/models answered 401: Invalid API Key.");
    assert.equal(noUpstreamModelReason([down, {url: "http://ollama:11434", models: [], error: null}]),
        "No upstream lists a model. http://gpu-c:8000: fetch failed: ECONNREFUSED: connect ECONNREFUSED 10.0.0.3:8000; http://ollama:11434: lists no model.");
    assert.match(noUpstreamModelReason([])!, /upstream\.urls is empty/);
});

test("Models view with the upstream engine: the upstreams' models (connected one marked, loadable), then the upstreams "
    + "that did not answer", () => {
    const rows = upstreamModelRows({listings: [gpuA, down], connected: "qwen-32b", configured: null});
    assert.deepEqual(rows.map((row) => [row.label, row.description, row.icon, row.contextValue, row.target]), [
        ["qwen-32b", "connected · upstream http://gpu-a:8000", "pass-filled", "upstreamModel.connected", "qwen-32b"],
        ["qwen-7b", "upstream http://gpu-a:8000", "cloud", "upstreamModel", "qwen-7b"],
        ["http://gpu-c:8000", "did not answer: fetch failed: ECONNREFUSED: connect ECONNREFUSED 10.0.0.3:8000", "warning", undefined, undefined]
    ]);
    assert.match(rows[0]!.tooltip!, /model files are not used/);
    // Disconnected (after Unload Model): the configured model is marked as such, and can be loaded again.
    const disconnected = upstreamModelRows({listings: [gpuA], connected: null, configured: "qwen-7b"});
    assert.deepEqual(disconnected.map((row) => [row.label, row.description, row.contextValue]), [
        ["qwen-7b", "configured, not connected · upstream http://gpu-a:8000", "upstreamModel"],
        ["qwen-32b", "upstream http://gpu-a:8000", "upstreamModel"]
    ]);
});

test("status bar with the upstream engine: connecting, connected, disconnected (serving 503), connection failed", () => {
    const base: StatusModel = {
        server: "listening", engine: "ready", modelName: "qwen-7b", loadProgress: null, active: 0, tokensPerSecond: 0,
        engineKind: "upstream",
        endpoint: "http://127.0.0.1:8080/v1", totals: {inputTokens: 0, outputTokens: 0, cachedTokens: 0, generations: 0}, activeJobs: null, queueDepth: 0
    };
    assert.equal(formatStatus({...base, engine: "loading", modelName: null}).text, "$(loading~spin) upstream: connecting");
    assert.equal(formatStatus(base).text, "$(check) qwen-7b: ready");
    const unloaded = formatStatus({...base, engine: "unloaded", modelName: null});
    assert.equal(unloaded.text, "$(circle-slash) Local Responses: upstream disconnected (serving 503)");
    assert.match(unloaded.tooltip, /disconnected from the upstreams; requests get 503 model_not_loaded until Load Model… connects again/);
    assert.equal(formatStatus({...base, engine: "failed"}).text, "$(error) qwen-7b: upstream connection failed");
    assert.equal(formatStatus({...base, engine: "unloaded", modelName: null, engineKind: "local"}).text,
        "$(circle-slash) Local Responses: no model (serving 503)");
});

test("Server view with the upstream engine: connecting, connected, disconnected (503), failed", () => {
    const state: ControllerState = {
        server: "listening", engine: "unloaded", model: null, pendingModelPath: null, loadProgress: null, endpoint: "http://127.0.0.1:8080/v1",
        lastError: null, engineKind: "upstream", upstreamModel: null, library: null
    };
    const describe = (change: Partial<ControllerState>) => serverRows({state: {...state, ...change}, engine: null,
        threads: {count: 1, isDefault: true},
        totals: {inputTokens: 0, outputTokens: 0, cachedTokens: 0, generations: 0}, vscodeChat: "on"})
        .find((row) => row.id === "server.state")!.description;
    assert.equal(describe({}), "listening · upstream disconnected (503)");
    assert.equal(describe({server: "stopped"}), "stopped · upstream disconnected");
    assert.equal(describe({engine: "loading"}), "listening · connecting to the upstreams");
    assert.equal(describe({engine: "failed"}), "listening · upstream connection failed");
    assert.equal(describe({engine: "ready"}), "listening · upstream connected");
    assert.equal(describe({engineKind: "local"}), "listening · no model (503)");
});
