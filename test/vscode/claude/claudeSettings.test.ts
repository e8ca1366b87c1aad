import assert from "node:assert/strict";
import path from "node:path";
import {test} from "node:test";
import {clientKeyVariable} from "../../../src/vscode/clientConfig/clientKey.js";
import {
    claudeBaseUrl, claudeSettingsFile, claudeSettingsPreview, mergeClaudeSettings, type ClaudeProvider
} from "../../../src/vscode/claude/claudeSettings.js";

const provider: ClaudeProvider = {endpoint: "http://127.0.0.1:8080/v1", model: "stories260K", contextWindow: 2048};

type Merged = {settings: Record<string, unknown>, env: Record<string, string>, removed: string[], text: string};

/** The merged file, parsed; fails the test when the merge refused. */
function merged(existing: string, target: ClaudeProvider = provider): Merged {
    const result = mergeClaudeSettings(existing, target);
    assert.ok(result.ok, result.ok ? "" : result.reason);
    const settings = JSON.parse(result.text) as Record<string, unknown>;
    return {settings, env: settings.env as Record<string, string>, removed: result.removed, text: result.text};
}

test("the base URL is the server's origin: Claude Code appends /v1/messages itself", () => {
    assert.equal(claudeBaseUrl("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080");
    assert.equal(claudeBaseUrl("http://127.0.0.1:8080/v1/"), "http://127.0.0.1:8080");
    assert.equal(claudeBaseUrl("http://[::1]:9000/v1"), "http://[::1]:9000");
});

test("the settings file is CLAUDE_CONFIG_DIR's when set, else ~/.claude's", () => {
    assert.equal(claudeSettingsFile({}, "/home/me"), path.join("/home/me", ".claude", "settings.json"));
    assert.equal(claudeSettingsFile({CLAUDE_CONFIG_DIR: ""}, "/home/me"), path.join("/home/me", ".claude", "settings.json"));
    assert.equal(claudeSettingsFile({CLAUDE_CONFIG_DIR: "/tmp/claude"}, "/home/me"), path.join("/tmp/claude", "settings.json"));
});

test("an empty or missing file gets the env block and a key helper that prints the variable, never the key", () => {
    for (const existing of ["", "  \n"]) {
        const {settings, env, removed, text} = merged(existing);
        assert.deepEqual(env, {
            ANTHROPIC_BASE_URL: "http://127.0.0.1:8080",
            ANTHROPIC_MODEL: "stories260K",
            ANTHROPIC_SMALL_FAST_MODEL: "stories260K",
            ANTHROPIC_DEFAULT_HAIKU_MODEL: "stories260K",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
            CLAUDE_CODE_ATTRIBUTION_HEADER: "0",
            CLAUDE_CODE_MAX_CONTEXT_TOKENS: "2048",
            CLAUDE_CODE_AUTO_COMPACT_WINDOW: "2048"
        });
        assert.equal(settings.apiKeyHelper, `printenv ${clientKeyVariable}`);
        assert.deepEqual(removed, []);
        assert.doesNotMatch(text, /sk-/);
        assert.ok(text.endsWith("}\n"));
    }
});

test("merging keeps the person's keys and env variables in place, replaces ours, and is idempotent", () => {
    const existing = JSON.stringify({
        permissions: {allow: ["Bash(npm test)"]},
        env: {ANTHROPIC_BASE_URL: "http://127.0.0.1:1111", MY_VAR: "kept", ANTHROPIC_MODEL: "old"},
        apiKeyHelper: "old-helper",
        model: "sonnet"
    }, null, 4);
    const {settings, env, text} = merged(existing);
    assert.deepEqual(Object.keys(settings), ["permissions", "env", "apiKeyHelper", "model"], "keys keep their place");
    assert.deepEqual(settings.permissions, {allow: ["Bash(npm test)"]});
    assert.equal(settings.model, "sonnet");
    assert.equal(env.MY_VAR, "kept");
    assert.equal(env.ANTHROPIC_BASE_URL, "http://127.0.0.1:8080");
    assert.equal(env.ANTHROPIC_MODEL, "stories260K");
    assert.equal(settings.apiKeyHelper, `printenv ${clientKeyVariable}`);
    assert.equal(merged(text).text, text, "idempotent");
    const moved = merged(text, {endpoint: "http://127.0.0.1:9090/v1", model: "qwen"});
    assert.equal(moved.env.ANTHROPIC_BASE_URL, "http://127.0.0.1:9090");
    assert.equal(moved.env.ANTHROPIC_SMALL_FAST_MODEL, "qwen");
    assert.equal(moved.env.MY_VAR, "kept");
});

test("keys Claude Code would send instead of the helper's stay in env unless removal is asked for, and are named either way", () => {
    const existing = JSON.stringify({env: {ANTHROPIC_API_KEY: "sk-ant-old", ANTHROPIC_AUTH_TOKEN: "tok", OTHER: "x"}});
    const kept = mergeClaudeSettings(existing, provider);
    assert.ok(kept.ok);
    assert.deepEqual(kept.kept.sort(), ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]);
    assert.deepEqual(kept.removed, []);
    const keptEnv = (JSON.parse(kept.text) as {env: Record<string, string>}).env;
    assert.equal(keptEnv.ANTHROPIC_API_KEY, "sk-ant-old");
    assert.equal(keptEnv.ANTHROPIC_AUTH_TOKEN, "tok");

    const removed = mergeClaudeSettings(existing, provider, true);
    assert.ok(removed.ok);
    assert.deepEqual(removed.removed.sort(), ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]);
    assert.deepEqual(removed.kept, []);
    const env = (JSON.parse(removed.text) as {env: Record<string, string>}).env;
    assert.ok(!("ANTHROPIC_API_KEY" in env) && !("ANTHROPIC_AUTH_TOKEN" in env));
    assert.equal(env.OTHER, "x");
    assert.doesNotMatch(removed.text, /sk-ant-old|"tok"/);
});

test("the person's layout is kept: their indentation, line ends, key order and untouched lines stay as they were", () => {
    const permissions = "    \"permissions\": {\r\n        \"allow\": [\"Bash(npm test)\", \"Read\"]\r\n    },";
    // A lone surrogate's escape and a raw DEL are valid JSON: kept as the person wrote them.
    const odd = '        "ODD": "\\uD800 \u007F",';
    const env = `    "env": {\r\n${odd}\r\n        "MY_VAR": "kept"\r\n    },`;
    const existing = `{\r\n${permissions}\r\n${env}\r\n    "model": "sonnet"\r\n}\r\n`;
    const {text, settings} = merged(existing);
    assert.ok(text.includes(permissions) && text.includes(odd), text);
    assert.match(text, /^ {8}"ANTHROPIC_BASE_URL": "http:\/\/127\.0\.0\.1:8080",\r$/m, "new keys in the file's 4-space indent");
    assert.doesNotMatch(text.replace(/\r\n/g, ""), /\n/, "CRLF line ends throughout");
    assert.deepEqual(Object.keys(settings), ["permissions", "env", "model", "apiKeyHelper"]);
    const tabbed = merged("{\n\t\"env\": {}\n}\n").text;
    assert.match(tabbed, /^\t\t"ANTHROPIC_MODEL": "stories260K",$/m, "a tab-indented file gets tabs");
    const unchanged = mergeClaudeSettings(text, provider);
    assert.ok(unchanged.ok && !unchanged.changed && unchanged.text === text, "merging again changes nothing");
});

test("a file that is not JSON, not an object, or whose env is not an object is refused, with the reason", () => {
    for (const [existing, reason] of [
        ["{\"env\": {}, // a comment\n}", /not valid JSON/],
        ["{\"env\": ", /not valid JSON/],
        ["[1, 2]", /not an object/],
        ["null", /not an object/],
        ["{\"env\": \"ANTHROPIC_BASE_URL=x\"}", /"env" is not an object/]
    ] as const) {
        const result = mergeClaudeSettings(existing, provider);
        assert.equal(result.ok, false, existing);
        assert.match(result.ok ? "" : result.reason, reason, existing);
    }
});

test("the block shown to copy is the block written, with the shell lines that give the helper its key", () => {
    const preview = claudeSettingsPreview("/home/me/.claude/settings.json", provider);
    const json = preview.split("\n").filter((line) => !line.startsWith("//")).join("\n");
    const {settings} = merged("");
    assert.deepEqual(JSON.parse(json), settings);
    assert.match(preview, new RegExp(`^// export ${clientKeyVariable}=`, "m"));
    assert.match(preview, /^\/\/ unset ANTHROPIC_AUTH_TOKEN ANTHROPIC_API_KEY/m);
    assert.doesNotMatch(preview, /sk-/);
});

test("the served context is Claude Code's window and compaction size; an unknown one takes an earlier block's out", () => {
    const {env} = merged("");
    assert.deepEqual([env.CLAUDE_CODE_MAX_CONTEXT_TOKENS, env.CLAUDE_CODE_AUTO_COMPACT_WINDOW], ["2048", "2048"],
        "without them Claude Code assumes 1M tokens for a name it does not know, and never compacts");
    assert.equal(env.CLAUDE_CODE_ATTRIBUTION_HEADER, "0", "no per-session attribution line first in system");
    const bigger = merged(merged("").text, {...provider, contextWindow: 32_768}).env;
    assert.deepEqual([bigger.CLAUDE_CODE_MAX_CONTEXT_TOKENS, bigger.CLAUDE_CODE_AUTO_COMPACT_WINDOW], ["32768", "32768"]);

    const unknown = {endpoint: provider.endpoint, model: "not-loaded-yet"};
    const {env: withoutWindow} = merged(merged("").text, unknown);
    assert.deepEqual([withoutWindow.CLAUDE_CODE_MAX_CONTEXT_TOKENS, withoutWindow.CLAUDE_CODE_AUTO_COMPACT_WINDOW], [undefined, undefined],
        "another model's window is not this one's");
    assert.equal(withoutWindow.CLAUDE_CODE_ATTRIBUTION_HEADER, "0");
    assert.match(claudeSettingsPreview("/home/me/.claude/settings.json", unknown),
        /^\/\/ and take CLAUDE_CODE_AUTO_COMPACT_WINDOW out of "env" \(an earlier block's window/m);
});
