import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {test} from "node:test";
import {defaultConfig} from "../../../src/host/config.js";
import {
    planSettingsChange, readSettings, resolveModelPath, settingId, settingKeys, toHostConfig
} from "../../../src/vscode/settings/extensionSettings.js";

const reader = (values: Record<string, unknown>) => (key: string) => values[key];

test("defaults match the core's defaults, and 0 means automatic for threads, context and sequences", () => {
    const {settings, problems} = readSettings(reader({}));
    assert.deepEqual(problems, []);
    const config = toHostConfig(settings, "sk-local-test", null);
    assert.equal(config.host, "127.0.0.1");
    assert.equal(config.port, 8080);
    assert.equal(config.parallel, null, "the engine's plan");
    assert.equal(config.contextSize, null);
    assert.ok(config.threads >= 1);
    assert.equal(config.gpu, "auto", "the best backend there is, else the CPU");
    assert.deepEqual(config.apiKeys, ["sk-local-test"]);
    assert.deepEqual(config.store, defaultConfig().store);
    assert.deepEqual(config.background, defaultConfig().background);
});

test("settings map onto the host configuration", () => {
    const {settings} = readSettings(reader({
        "model.path": " /models/a.gguf ", "model.alias": "mine", "server.port": 0, "threads": 3, "contextSize": 4096, "parallel": 2,
        "gpu": "vulkan", "server.allowedOrigins": ["https://a.example", " "], "strictModel": true, "store.ttlSeconds": 0,
        "jobs.maxActive": 0, "jobs.workers": 3, "cacheTypeK": "q8_0"
    }));
    assert.equal(settings.modelPath, "/models/a.gguf");
    const config = toHostConfig(settings, "key", "/abs/a.gguf");
    assert.equal(config.modelPath, "/abs/a.gguf");
    assert.equal(config.modelAlias, "mine");
    assert.equal(config.port, 0);
    assert.equal(config.threads, 3);
    assert.equal(config.contextSize, 4096);
    assert.equal(config.parallel, 2);
    assert.equal(config.gpu, "vulkan");
    assert.equal(config.cacheTypeK, "q8_0");
    assert.deepEqual(config.allowedOrigins, ["https://a.example"]);
    assert.equal(config.strictModel, true);
    assert.equal(config.store.ttlSeconds, 0);
    assert.equal(config.background.maxJobs, 0);
    assert.equal(config.background.workers, 3);
});

test("wrong values fall back to defaults and are reported, not silently used", () => {
    const {settings, problems} = readSettings(
        reader({
            "server.port": 70000, "threads": 1.5, "gpu": "rocm", "autoStart": "yes", "server.allowedOrigins": "x", "cacheTypeK": "q4_0"
        })
    );
    assert.equal(settings.port, 8080);
    assert.equal(settings.threads, 0);
    assert.equal(settings.gpu, "auto");
    assert.equal(settings.autoStart, true);
    assert.equal(settings.cacheTypeK, "f16");
    assert.equal(problems.length, 6);
    assert.match(problems.join("\n"), /localResponses\.server\.port must be an integer from 0 to 65535 \(got 70000\)/);
});

test("model paths: ~ is home, relative is relative to the workspace folder", () => {
    assert.equal(resolveModelPath("~/m.gguf", "/ws", "/home/me"), "/home/me/m.gguf");
    assert.equal(resolveModelPath("../shared/m.gguf", "/work/main", "/home/me"), "/work/shared/m.gguf");
    assert.equal(resolveModelPath("m.gguf", null, "/home/me"), "/home/me/m.gguf");
    assert.equal(resolveModelPath("/abs/m.gguf", "/ws"), "/abs/m.gguf");
});

test("each change is applied with the least disruption it needs", () => {
    const base = readSettings(reader({"model.path": "/a.gguf"})).settings;
    const plan = (change: Record<string, unknown>) => planSettingsChange(base,
        readSettings(reader({"model.path": "/a.gguf", ...change})).settings);
    assert.deepEqual(plan({}), {action: "none", changed: []});
    assert.equal(plan({"autoStart": false}).action, "none");
    assert.equal(plan({"model.path": "/b.gguf"}).action, "loadModel");
    assert.equal(plan({"server.port": 9000}).action, "restartServer");
    assert.equal(plan({"threads": 2}).action, "rebuild");
    assert.equal(plan({"store.maxEntries": 5}).action, "rebuild");
    assert.equal(plan({"server.allowedOrigins": ["https://x.example"]}).action, "rebuild");
    assert.deepEqual(plan({"server.port": 9000, "model.path": "/b.gguf"}).changed.sort(), ["modelPath", "port"]);
});

test("every field names a setting that package.json declares (messages say what a person edits)", () => {
    const manifest = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../../../package.json"), "utf8")) as {
        contributes: {configuration: {properties: Record<string, unknown>}}
    };
    const declared = Object.keys(manifest.contributes.configuration.properties).sort();
    const named = (Object.keys(settingKeys) as (keyof typeof settingKeys)[]).map(settingId).sort();
    assert.deepEqual(named, declared);
    assert.equal(settingId("contextSize"), "localResponses.contextSize");
});

test("engine settings mirror --engine, --upstream, --upstream-model and --upstream-timeout-secs; the upstream key comes apart", () => {
    const {settings, problems} = readSettings(reader({
        "engine": "upstream", "upstream.urls": [" http://gpu-a:8000/v1 ", "https://gpu-b/v1"], "upstream.model": "qwen", "upstream.timeoutSeconds": 30
    }));
    assert.deepEqual(problems, []);
    const config = toHostConfig(settings, "key", null, "sk-upstream");
    assert.equal(config.engine, "upstream");
    assert.deepEqual(config.upstream, {...defaultConfig().upstream, urls: ["http://gpu-a:8000/v1", "https://gpu-b/v1"], apiKey: "sk-upstream", model: "qwen", timeoutSeconds: 30});
    const local = toHostConfig(readSettings(reader({})).settings, "key", null);
    assert.equal(local.engine, "local");
    assert.deepEqual(local.upstream, defaultConfig().upstream);
});

test("engine settings that cannot work are said out loud and fall back to the local engine", () => {
    const bad = readSettings(reader({"engine": "cloud"}));
    assert.equal(bad.settings.engine, "local");
    assert.match(bad.problems.join("\n"), /localResponses\.engine must be local or upstream \(got "cloud"\)/);
    const noUrl = readSettings(reader({"engine": "upstream", "upstream.urls": ["ftp://x", "not a url"]}));
    assert.equal(noUrl.settings.engine, "local");
    assert.deepEqual(noUrl.settings.upstreamUrls, []);
    assert.match(noUrl.problems.join("\n"), /localResponses\.upstream\.urls must hold http\(s\) URLs \(got "ftp:\/\/x"\)/);
    assert.match(noUrl.problems.join("\n"),
        /localResponses\.engine is upstream but localResponses\.upstream\.urls lists no http\(s\) URL; using local/);
    assert.match(readSettings(reader({"upstream.urls": "http://x"})).problems.join("\n"), /must be a list of http\(s\) URLs/);
    assert.match(readSettings(reader({"upstream.timeoutSeconds": 0})).problems.join("\n"),
        /localResponses\.upstream\.timeoutSeconds must be an integer from 1/);
});

test("the chat format settings mirror --chat-wrapper and --chat-template; a template beside a wrapper that ignores it is dropped", () => {
    const chosen = readSettings(reader({"model.chatWrapper": "kimi-k2", "model.chatTemplate": "chatml"}));
    assert.deepEqual(chosen.problems, []);
    assert.deepEqual(toHostConfig(chosen.settings, "key", null).chatFormat, {wrapper: "kimi-k2", template: "chatml"});
    const wrong = readSettings(reader({"model.chatWrapper": "chatml", "model.chatTemplate": "/no/such.jinja"}));
    assert.deepEqual(toHostConfig(wrong.settings, "key", null).chatFormat, {wrapper: "auto", template: null});
    assert.match(wrong.problems[0]!, /^localResponses\.model\.chatWrapper must be auto, general, .*; using auto\.$/);
    assert.match(wrong.problems[1]!, /^localResponses\.model\.chatTemplate must be a Jinja template file or a builtin name/);
    const both = readSettings(reader({"model.chatWrapper": "chatML", "model.chatTemplate": "llama3"}));
    assert.deepEqual(toHostConfig(both.settings, "key", null).chatFormat, {wrapper: "chatML", template: null});
    assert.match(both.problems.join("\n"), /localResponses\.model\.chatWrapper chatML renders prompts its own way: .*chatTemplate is ignored/);
    assert.equal(planSettingsChange(chosen.settings, both.settings).action, "rebuild", "the wrapper is chosen when the model loads");
});

test("changing the engine or any upstream setting rebuilds the core", () => {
    const base = readSettings(reader({"engine": "upstream", "upstream.urls": ["http://a/v1"]})).settings;
    for (const change of [{"engine": "local"}, {"upstream.urls": ["http://b/v1"]}, {"upstream.model": "m"}, {"upstream.timeoutSeconds": 5}]) {
        const next = readSettings(reader({"engine": "upstream", "upstream.urls": ["http://a/v1"], ...change})).settings;
        assert.equal(planSettingsChange(base, next).action, "rebuild", JSON.stringify(change));
    }
});
