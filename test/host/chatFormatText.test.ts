import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {chatFormatWarning, describeChatFormat} from "../../src/host/chatFormatText.js";
import {settingsTable} from "../../src/host/settings/settingsTable.js";

describe("the chat format in words", () => {
    const understood = {wrapper: "JinjaTemplate+kimi-k2", family: "kimi-k2", toolCallsUnderstood: true};
    const generic = {wrapper: "JinjaTemplate", family: null, toolCallsUnderstood: false};

    it("says the wrapper, the family and whether the model's own calls are understood", () => {
        assert.equal(describeChatFormat(understood), "JinjaTemplate+kimi-k2 (family kimi-k2, tool calls understood)");
        assert.equal(describeChatFormat(generic), "JinjaTemplate (no known family, tool calls only when forced)");
    });

    it("warns in one line, naming the flags and settings that choose another format, only where calls are not understood", () => {
        assert.equal(chatFormatWarning("m", understood), null);
        const warning = chatFormatWarning("m", generic)!;
        assert.doesNotMatch(warning, /\n/);
        const {chatWrapper, chatTemplate} = settingsTable;
        for (const named of [`--${chatWrapper.cli!.flag} `, `--${chatTemplate.cli!.flag} `, `localResponses.${chatWrapper.editor.key}`,
            chatTemplate.editor.key])
            assert.ok(warning.includes(named), `names ${named}: ${warning}`);
    });
});
