import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, describe, it} from "node:test";
import {modelFamilies} from "../../src/engine/llama/families/familyTable.js";
import {CliUsageError, parseCliOptions} from "../../src/host/cliOptions.js";

const folder = fs.mkdtempSync(path.join(os.tmpdir(), "chat-format-options-"));
const templateFile = path.join(folder, "template.jinja");
fs.writeFileSync(templateFile, "{% for message in messages %}{{ message.content }}{% endfor %}");
after(() => fs.rmSync(folder, {recursive: true, force: true}));

const chatFormat = (args: string[], env: NodeJS.ProcessEnv = {}) => parseCliOptions(args, env).config.chatFormat;

/** The usage error `args` get, which must be one line. */
function refusal(args: string[]): string {
    try {
        parseCliOptions(args, {});
    } catch (error) {
        assert.ok(error instanceof CliUsageError, String(error));
        assert.doesNotMatch(error.message, /\n/, "one line");
        return error.message;
    }
    assert.fail(`${args.join(" ")} was accepted`);
}

describe("--chat-wrapper", () => {
    it("defaults to auto (detection), takes node-llama-cpp's wrapper names and the family ids, from the flag or the environment", () => {
        assert.deepEqual(chatFormat([]), {wrapper: "auto", template: null});
        assert.equal(chatFormat(["--chat-wrapper", "chatML"]).wrapper, "chatML");
        assert.equal(chatFormat(["--chat-wrapper", "llama3.1"]).wrapper, "llama3.1");
        assert.equal(chatFormat(["--chat-wrapper", "jinjaTemplate"]).wrapper, "jinjaTemplate");
        for (const {id} of modelFamilies)
            assert.equal(chatFormat(["--chat-wrapper", id]).wrapper, id);
        assert.equal(chatFormat([], {LOCAL_RESPONSES_CHAT_WRAPPER: "harmony"}).wrapper, "harmony");
    });

    it("refuses an unknown name in one line that lists the valid ones", () => {
        const message = refusal(["--chat-wrapper", "chatml"]);
        assert.match(message, /^--chat-wrapper must be auto, general, deepSeek, qwen, .*chatML.*jinjaTemplate, kimi-k2, .* \(got 'chatml'\)\.$/);
        for (const {id} of modelFamilies)
            assert.ok(message.includes(id), `names ${id}`);
        assert.doesNotMatch(message, /\btemplate\b/, "node-llama-cpp's `template` wrapper needs settings of its own: not offered");
    });
});

describe("--chat-template", () => {
    it("takes a Jinja file or a builtin name (llama.cpp's), from the flag or the environment", () => {
        assert.deepEqual(chatFormat(["--chat-template", templateFile]), {wrapper: "auto", template: templateFile});
        assert.equal(chatFormat(["--chat-template", "chatml"]).template, "chatml");
        assert.equal(chatFormat([], {LOCAL_RESPONSES_CHAT_TEMPLATE: "gpt-oss"}).template, "gpt-oss");
    });

    it("refuses a missing file or an unknown name in one line that lists the builtin names", () => {
        assert.equal(refusal(["--chat-template", path.join(folder, "missing.jinja")]),
            "--chat-template must be a Jinja template file or a builtin name (chatml, llama2, llama3, mistral-v7, deepseek3, gemma, "
                + `gpt-oss, seed_oss) (got '${path.join(folder, "missing.jinja")}').`);
        assert.match(refusal(["--chat-template", folder]), /must be a Jinja template file/, "a folder is no template");
    });

    it("goes with a family id (the template renders, the family parses calls), not with a wrapper that renders its own way", () => {
        assert.deepEqual(chatFormat(["--chat-wrapper", "kimi-k2", "--chat-template", templateFile]),
            {wrapper: "kimi-k2", template: templateFile});
        assert.match(refusal(["--chat-wrapper", "chatML", "--chat-template", "llama3"]),
            /^--chat-wrapper chatML renders prompts its own way and would ignore --chat-template: give one of them/);
    });
});
