import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import type {ChatFormatChoice} from "../../../src/engine/llama/families/chatFormatChoice.js";
import {templateModel} from "../../helpers/templateModel.js";
import {startTestServer} from "../../helpers/testServer.js";

/**
 * The chat format a model is served with, as clients and people read it (`/v1/models`, `/v1/status`, the load line),
 * and a person's choice over detection. Phi-3.5's template has no tool-call syntax node-llama-cpp can extract, so its
 * calls are understood only in the format a person chooses.
 */
describe("chat format: reported, and chosen over detection", () => {
    let model: string;
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "chat-format-"));
    before(async () => {
        model = await templateModel("phi-3.5");
    });
    after(() => fs.rmSync(folder, {recursive: true, force: true}));

    /** What a server on the model with `chatFormat` reports in /v1/models, /v1/status and its log. */
    async function served(chatFormat?: ChatFormatChoice) {
        const lines: string[] = [];
        const server = await startTestServer({model, contextSize: 512, parallel: 1, log: (line) => lines.push(line),
            ...chatFormat != null && {chatFormat}});
        try {
            const models = await (await server.fetch("/v1/models")).json() as {data: {id: string, chat_format?: unknown}[]};
            const one = await (await server.fetch(`/v1/models/${models.data[0]!.id}`)).json() as {chat_format?: unknown};
            const status = await (await server.fetch("/v1/status")).json() as {model: {chat_format?: unknown}};
            assert.deepEqual(one.chat_format, models.data[0]!.chat_format, "the model's own entry says the same");
            assert.deepEqual(status.model.chat_format, models.data[0]!.chat_format, "the status says the same");
            return {format: models.data[0]!.chat_format, lines};
        } finally {
            await server.close();
        }
    }

    it("detected: node-llama-cpp's Jinja wrapper on its generic call syntax, said everywhere, with a warning naming the way out",
        async () => {
            const {format, lines} = await served();
            assert.deepEqual(format, {wrapper: "JinjaTemplate", family: null, tool_calls_understood: false});
            assert.match(lines.join("\n"), /^model: loaded phi-3\.5 on CPU \(context 512 × 1 sequences, JinjaTemplate \(no known family, tool calls only when forced\)/m);
            const warnings = lines.filter((line) => line.startsWith("model: warning: "));
            assert.equal(warnings.length, 1, lines.join("\n"));
            assert.match(warnings[0]!, /not understood by JinjaTemplate: .* --chat-wrapper NAME or --chat-template FILE/);
        });

    it("--chat-wrapper with a family id forces that family's call syntax on the model's template; no warning", async () => {
        const {format, lines} = await served({wrapper: "kimi-k2", template: null});
        assert.deepEqual(format, {wrapper: "JinjaTemplate+kimi-k2", family: "kimi-k2", tool_calls_understood: true});
        assert.match(lines.join("\n"), /JinjaTemplate\+kimi-k2 \(family kimi-k2, tool calls understood\)/);
        assert.equal(lines.filter((line) => line.startsWith("model: warning: ")).length, 0);
    });

    it("--chat-wrapper with a node-llama-cpp wrapper name serves exactly that wrapper", async () => {
        const {format} = await served({wrapper: "llama3.1", template: null});
        assert.deepEqual(format, {wrapper: "Llama 3.1", family: null, tool_calls_understood: true});
    });

    it("--chat-template: a builtin renders with its node-llama-cpp wrapper; a file with the Jinja wrapper, its family detected in it",
        async () => {
            assert.deepEqual((await served({wrapper: "auto", template: "gpt-oss"})).format,
                {wrapper: "Harmony", family: null, tool_calls_understood: true});
            // Kimi K2's fingerprint in a template of the person's: its family's syntax parses the calls.
            const file = path.join(folder, "kimi-like.jinja");
            fs.writeFileSync(file, "{%- for message in messages -%}<|im_user|>{{ message.content }}<|im_end|>{%- endfor -%}"
            + "{#- <|tool_calls_section_begin|> ## Return of -#}<|im_assistant|>");
            assert.deepEqual((await served({wrapper: "auto", template: file})).format,
                {wrapper: "JinjaTemplate+kimi-k2", family: "kimi-k2", tool_calls_understood: true});
        });
});
