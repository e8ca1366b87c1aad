import assert from "node:assert/strict";
import {test} from "node:test";
import {claudeModelEnv} from "../../../src/vscode/claude/claudeModelEnv.js";
import {claudeSettingsBlock} from "../../../src/vscode/claude/claudeSettings.js";

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

test("the settings block carries them between the base URL and the traffic switch", () => {
    const block = claudeSettingsBlock({endpoint: "http://127.0.0.1:8080/v1", model: "coder", library: {smallModel: "small"}});
    assert.deepEqual(Object.keys(block.env), [
        "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL",
        "ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"
    ]);
    assert.equal(block.env.ANTHROPIC_DEFAULT_HAIKU_MODEL, "small");
});
