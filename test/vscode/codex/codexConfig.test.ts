import assert from "node:assert/strict";
import {test} from "node:test";
import {codexKeyVariable, codexProviderBlock, mergeCodexConfig} from "../../../src/vscode/codex/codexConfig.js";

const provider = {endpoint: "http://127.0.0.1:8080/v1", model: "stories260K"};

test("the provider block points Codex at the endpoint with the key in an env var, never the key itself", () => {
    const block = codexProviderBlock(provider);
    assert.match(block, /^\[model_providers\.local-responses\]$/m);
    assert.match(block, /^base_url = "http:\/\/127\.0\.0\.1:8080\/v1"$/m);
    assert.match(block, /^wire_api = "responses"$/m);
    assert.match(block, new RegExp(`^env_key = "${codexKeyVariable}"$`, "m"));
    assert.doesNotMatch(block, /sk-/);
});

test("writing into an empty file gives top-level keys first, then the table", () => {
    const text = mergeCodexConfig("", provider);
    assert.equal(text.indexOf('model_provider = "local-responses"'), 0);
    assert.ok(text.indexOf('model = "stories260K"') < text.indexOf("[model_providers.local-responses]"));
});

test("merging keeps the rest of the file, replaces our table and the top-level choice", () => {
    const existing = [
        "# my codex config",
        'model = "gpt-5"',
        'model_provider = "openai"',
        'approval_policy = "never"',
        "",
        "[model_providers.local-responses]",
        'base_url = "http://127.0.0.1:1111/v1"',
        "",
        "[profiles.work]",
        'model = "o3"',
        ""
    ].join("\n");
    const merged = mergeCodexConfig(existing, provider);
    assert.match(merged, /# my codex config/);
    assert.match(merged, /approval_policy = "never"/);
    assert.match(merged, /\[profiles\.work\]\nmodel = "o3"/, "other tables and their keys are kept");
    assert.doesNotMatch(merged, /1111/);
    assert.equal(merged.match(/\[model_providers\.local-responses\]/g)?.length, 1);
    assert.equal(merged.match(/^model_provider = /gm)?.length, 1);
    const firstTable = merged.search(/^\[/m);
    assert.ok(merged.indexOf('model = "stories260K"') < firstTable, "top-level keys stay before the first table");
    // Idempotent.
    assert.equal(mergeCodexConfig(merged, provider), merged);
});

test("with the model's context known, Codex is told its window and compacts at 80 % of it; an unknown one leaves the file's", () => {
    const text = mergeCodexConfig("", {...provider, contextWindow: 32768});
    const firstTable = text.search(/^\[/m);
    assert.ok(text.search(/^model_context_window = 32768$/m) >= 0 && text.search(/^model_context_window = /m) < firstTable, text);
    assert.ok(text.search(/^model_auto_compact_token_limit = 26214$/m) >= 0
        && text.search(/^model_auto_compact_token_limit = /m) < firstTable, text);
    // A model with another context replaces both; the same provider without a known context keeps them.
    const reloaded = mergeCodexConfig(text, {...provider, contextWindow: 8192});
    assert.equal(reloaded.match(/^model_context_window = /gm)?.length, 1);
    assert.match(reloaded, /^model_context_window = 8192$/m);
    assert.match(reloaded, /^model_auto_compact_token_limit = 6553$/m);
    assert.match(mergeCodexConfig(reloaded, provider), /^model_context_window = 8192$/m);
    assert.equal(mergeCodexConfig(reloaded, {...provider, contextWindow: 8192}), reloaded, "idempotent");
});
