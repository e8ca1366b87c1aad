import assert from "node:assert/strict";
import {test} from "node:test";
import {claudeModelEnv} from "../../../src/vscode/claude/claudeModelEnv.js";
import {claudeSettingsBlock, mergeClaudeSettings} from "../../../src/vscode/claude/claudeSettings.js";

test("one model: every name Claude Code sends is its id, its sonnet and opus aliases left alone", () => {
    assert.deepEqual(claudeModelEnv({main: "m", small: "m", library: false}), {
        ANTHROPIC_MODEL: "m", ANTHROPIC_SMALL_FAST_MODEL: "m", ANTHROPIC_DEFAULT_HAIKU_MODEL: "m"
    });
});

test("a library: the main model for main turns and the sonnet and opus aliases, the small one under both of its variables", () => {
    const env = claudeModelEnv({main: "coder", small: "small", library: true});
    assert.deepEqual(Object.entries(env), [
        ["ANTHROPIC_MODEL", "coder"],
        ["ANTHROPIC_DEFAULT_SONNET_MODEL", "coder"],
        ["ANTHROPIC_DEFAULT_OPUS_MODEL", "coder"],
        ["ANTHROPIC_SMALL_FAST_MODEL", "small"],
        ["ANTHROPIC_DEFAULT_HAIKU_MODEL", "small"]
    ]);
});

test("the settings block carries them after the base URL; with a small model, reports off one by one so titles reach it", () => {
    const block = claudeSettingsBlock({endpoint: "http://127.0.0.1:8080/v1", model: "coder", library: {smallModel: "small"}});
    assert.deepEqual(Object.keys(block.env), [
        "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL",
        "ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL", "DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING",
        "DISABLE_BUG_COMMAND", "CLAUDE_CODE_ATTRIBUTION_HEADER"
    ]);
    assert.equal(block.env.ANTHROPIC_DEFAULT_HAIKU_MODEL, "small");
    // The one switch would stop the titles, the small model's only request: an earlier block's is taken out.
    assert.deepEqual(block.unset,
        ["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "CLAUDE_CODE_MAX_CONTEXT_TOKENS", "CLAUDE_CODE_AUTO_COMPACT_WINDOW"]);
    const merged = mergeClaudeSettings(JSON.stringify({env: {CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", MINE: "x"}}),
        {endpoint: "http://127.0.0.1:8080/v1", model: "coder", library: {smallModel: "small"}});
    assert.ok(merged.ok);
    const env = (JSON.parse(merged.text) as {env: Record<string, string>}).env;
    assert.equal(env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, undefined);
    assert.deepEqual([env.MINE, env.DISABLE_TELEMETRY], ["x", "1"]);

    const single = claudeSettingsBlock({endpoint: "http://127.0.0.1:8080/v1", model: "coder", contextWindow: 8192});
    assert.deepEqual([single.env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, single.env.DISABLE_TELEMETRY, single.unset],
        ["1", undefined, []]);
});
