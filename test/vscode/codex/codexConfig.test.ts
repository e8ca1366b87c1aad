import assert from "node:assert/strict";
import {test} from "node:test";
import {parse, type TomlTable} from "smol-toml";
import {codexKeyVariable, codexProviderBlock, mergeCodexConfig, type CodexProvider} from "../../../src/vscode/codex/codexConfig.js";

const provider = {endpoint: "http://127.0.0.1:8080/v1", model: "stories260K"};

/** The merged text; fails the test when the merge refused. */
function mergeCodexConfigText(existing: string, target: CodexProvider = provider): string {
    const result = mergeCodexConfig(existing, target);
    assert.ok(result.ok, result.ok ? "" : result.reason);
    return result.text;
}

/** The merged file as a TOML parser reads it: what Codex will see. */
function mergedTable(existing: string, target: CodexProvider = provider): TomlTable {
    return parse(mergeCodexConfigText(existing, target), {integersAsBigInt: true});
}

function ourTable(config: TomlTable): TomlTable {
    return (config.model_providers as TomlTable)["local-responses"] as TomlTable;
}

test("the provider block points Codex at the endpoint with the key in an env var, never the key itself", () => {
    const block = codexProviderBlock(provider);
    assert.match(block, /^\[model_providers\.local-responses\]$/m);
    assert.match(block, /^base_url = "http:\/\/127\.0\.0\.1:8080\/v1"$/m);
    assert.match(block, /^wire_api = "responses"$/m);
    assert.match(block, new RegExp(`^env_key = "${codexKeyVariable}"$`, "m"));
    assert.doesNotMatch(block, /sk-/);
});

test("writing into an empty file gives top-level keys first, then the table", () => {
    const text = mergeCodexConfigText("", provider);
    assert.equal(text.indexOf('model_provider = "local-responses"'), 0);
    assert.ok(text.indexOf('model = "stories260K"') < text.indexOf("[model_providers.local-responses]"));
});

test("merging keeps the rest of the file, comments included, replaces our table and the top-level choice", () => {
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
    const merged = mergeCodexConfigText(existing, provider);
    assert.match(merged, /# my codex config/);
    assert.match(merged, /approval_policy = "never"/);
    assert.match(merged, /\[profiles\.work\]\nmodel = "o3"/, "other tables and their keys are kept");
    assert.doesNotMatch(merged, /1111/);
    assert.equal(merged.match(/\[model_providers\.local-responses\]/g)?.length, 1);
    assert.equal(merged.match(/^model_provider = /gm)?.length, 1);
    const firstTable = merged.search(/^\[/m);
    assert.ok(merged.indexOf('model = "stories260K"') < firstTable, "top-level keys stay before the first table");
    // Idempotent.
    assert.equal(mergeCodexConfigText(merged, provider), merged);
});

test("with the model's context known, Codex is told its window and compacts at 80 % of it; an unknown one leaves the file's", () => {
    const text = mergeCodexConfigText("", {...provider, contextWindow: 32768});
    const firstTable = text.search(/^\[/m);
    assert.ok(text.search(/^model_context_window = 32768$/m) >= 0 && text.search(/^model_context_window = /m) < firstTable, text);
    assert.ok(text.search(/^model_auto_compact_token_limit = 26214$/m) >= 0
        && text.search(/^model_auto_compact_token_limit = /m) < firstTable, text);
    // A model with another context replaces both; the same provider without a known context keeps them.
    const reloaded = mergeCodexConfigText(text, {...provider, contextWindow: 8192});
    assert.equal(reloaded.match(/^model_context_window = /gm)?.length, 1);
    assert.match(reloaded, /^model_context_window = 8192$/m);
    assert.match(reloaded, /^model_auto_compact_token_limit = 6553$/m);
    assert.match(mergeCodexConfigText(reloaded, provider), /^model_context_window = 8192$/m);
    assert.equal(mergeCodexConfigText(reloaded, {...provider, contextWindow: 8192}), reloaded, "idempotent");
});

test("a quoted table header names the same table: it is replaced, not written a second time", () => {
    const existing = '# mine\nmodel = "gpt-5"\nsince = 1979-05-27T07:32:00Z\n\n[model_providers."local-responses"]\n'
        + 'base_url = "http://127.0.0.1:1111/v1"\n\n[model_providers.openai] # theirs\nname = "OpenAI"\n';
    const config = mergedTable(existing);
    assert.equal(ourTable(config).base_url, provider.endpoint);
    assert.deepEqual(Object.keys(config.model_providers as TomlTable).sort(), ["local-responses", "openai"]);
    assert.equal(((config.model_providers as TomlTable).openai as TomlTable).name, "OpenAI");
    assert.doesNotMatch(mergeCodexConfigText(existing), /1111/);
    assert.match(mergeCodexConfigText(existing), /^# mine\n[^]*\[model_providers\.openai\] # theirs$/m, "comments kept");
});

test("a multi-line string that holds table headers and keys is kept as a string, and nothing inside it is taken for TOML", () => {
    const prompt = "Review this:\n[model_providers.local-responses]\nmodel = \"not-a-key\"\n'''\n";
    const existing = `instructions = """\n${prompt}"""\nliteral = '''\n[profiles.x]\n'''\n\n[profiles.work]\nmodel = "o3"\n`;
    const config = mergedTable(existing);
    assert.equal(config.instructions, prompt);
    assert.equal(config.literal, "[profiles.x]\n");
    assert.equal(config.model, "stories260K");
    assert.equal(((config.profiles as TomlTable).work as TomlTable).model, "o3");
    assert.equal(ourTable(config).base_url, provider.endpoint);
    assert.equal(Object.keys(config.model_providers as TomlTable).length, 1);
});

test("values TOML cannot hold raw are written escaped (DEL and control characters), and a lone surrogate is refused", () => {
    const existing = 'note = "tab\\there \\u007F del"\nratio = 1.0\nbig = 9007199254740993\n';
    const config = mergedTable(existing, {...provider, model: "odd\u007Fname\u0001"});
    assert.equal(config.model, "odd\u007Fname\u0001");
    assert.equal(config.note, "tab\there \u007F del");
    assert.match(mergeCodexConfigText(existing), /^ratio = 1\.0$/m, "a float stays a float");
    assert.equal(config.big, 9007199254740993n, "an integer past 2^53 stays exact");
    for (const model of ["lone\uD800", "lone\uDC00end"]) {
        const result = mergeCodexConfig("", {...provider, model});
        assert.equal(result.ok, false, model);
        assert.match(result.ok ? "" : result.reason, /lone UTF-16 surrogate/);
    }
});

test("a file that is not TOML, or whose model_providers is not a table, is refused with the reason", () => {
    for (const [existing, reason] of [
        ['model = "unterminated\n', /not valid TOML/],
        ["[a]\nx = 1\n[a]\nx = 2\n", /not valid TOML/],
        ['s = "\\uD800"\n', /not valid TOML/],
        ['s = "raw \u007F del"\n', /not valid TOML/],
        ['model_providers = "openai"\n', /model_providers is not a table/]
    ] as const) {
        const result = mergeCodexConfig(existing, provider);
        assert.equal(result.ok, false, existing);
        assert.match(result.ok ? "" : result.reason, reason, existing);
    }
});

test("a file that already says all of it is kept byte for byte, comments and all", () => {
    const existing = `# mine\n${mergeCodexConfigText("")}# trailing comment\n`;
    const result = mergeCodexConfig(existing, provider);
    assert.ok(result.ok && !result.changed);
    assert.equal(result.text, existing);
});
