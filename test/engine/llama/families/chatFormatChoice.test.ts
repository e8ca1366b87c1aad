import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {
    builtinChatTemplates, chatWrapperNames, nodeLlamaCppWrapperNames, templateChoice, wrapperAndTemplateConflict, wrapperChoice
} from "../../../../src/engine/llama/families/chatFormatChoice.js";
import {modelFamilies} from "../../../../src/engine/llama/families/familyTable.js";

describe("chat format choice", () => {
    it("reads a wrapper name as detection, one of node-llama-cpp's wrappers or a family to force", () => {
        assert.deepEqual(wrapperChoice("auto"), {kind: "auto"});
        assert.deepEqual(wrapperChoice("chatML"), {kind: "wrapper", type: "chatML"});
        assert.deepEqual(wrapperChoice("kimi-k2"), {kind: "family", family: modelFamilies.find(({id}) => id === "kimi-k2")});
        assert.equal(wrapperChoice("ChatML"), null, "names are exact, as node-llama-cpp spells them");
        assert.equal(wrapperChoice("template"), null);
    });

    it("lists every name once: auto, node-llama-cpp's, then the families'", () => {
        assert.deepEqual(chatWrapperNames, ["auto", ...nodeLlamaCppWrapperNames, ...modelFamilies.map(({id}) => id)]);
        assert.equal(new Set(chatWrapperNames).size, chatWrapperNames.length, "no family id shadows a wrapper name");
        for (const name of chatWrapperNames)
            assert.notEqual(wrapperChoice(name), null, name);
    });

    it("reads a template as the model's own, a builtin (the node-llama-cpp wrapper of llama.cpp's format), or a file", () => {
        assert.deepEqual(templateChoice(null), {kind: "model"});
        assert.deepEqual(templateChoice("chatml"), {kind: "builtin", name: "chatml", type: "chatML"});
        assert.deepEqual(templateChoice("gpt-oss"), {kind: "builtin", name: "gpt-oss", type: "harmony"});
        assert.deepEqual(templateChoice("./gpt-oss"), {kind: "file", path: "./gpt-oss"});
        assert.deepEqual(templateChoice("toString"), {kind: "file", path: "toString"}, "own keys only");
        for (const type of Object.values(builtinChatTemplates))
            assert.ok((nodeLlamaCppWrapperNames as readonly string[]).includes(type), type);
    });

    it("refuses a template with a wrapper that renders its own way, not with a family or detection", () => {
        assert.equal(wrapperAndTemplateConflict({wrapper: "chatML", template: "llama3"}), true);
        assert.equal(wrapperAndTemplateConflict({wrapper: "kimi-k2", template: "/t.jinja"}), false);
        assert.equal(wrapperAndTemplateConflict({wrapper: "auto", template: "/t.jinja"}), false);
        assert.equal(wrapperAndTemplateConflict({wrapper: "chatML", template: null}), false);
    });
});
