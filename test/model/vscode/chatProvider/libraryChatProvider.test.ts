import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {HostController} from "../../../../src/vscode/controller/HostController.js";
import {languageModelApiOf} from "../../../../src/vscode/chatProvider/languageModelApi.js";
import {LocalChatModelProvider} from "../../../../src/vscode/chatProvider/LocalChatModelProvider.js";
import {readSettings} from "../../../../src/vscode/settings/extensionSettings.js";
import {libraryModelRows} from "../../../../src/vscode/sidebar/libraryModelRows.js";
import {cancellationSource, fakeVscodeModule, TextPart} from "../../../helpers/fakeLanguageModelApi.js";
import {models} from "../../../helpers/paths.js";

/**
 * The editor with a model library (`localResponses.models.directory`) on the real engine: the controller built as the
 * extension builds it, the chat provider the extension registers. Every model of the folder is in the editor's chat,
 * loaded or not, and answering with one that is not loaded loads it.
 */
describe("VS Code chat provider with a model library (real engine)", () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "lr-editor-library-"));
    for (const file of [models.chatml, models.think])
        fs.symlinkSync(file, path.join(folder, path.basename(file)));
    const settingsRead: Record<string, unknown> = {
        threads: 1, parallel: 1, contextSize: 2048, "server.port": 0, "models.directory": folder, "models.maxLoaded": 1
    };
    const {settings} = readSettings((key) => settingsRead[key]);
    const controller = new HostController(settings, {
        apiKey: async () => "sk-test", resolveModelPath: (raw) => raw, log: () => undefined, onRequest: () => undefined
    });
    const provider = new LocalChatModelProvider(languageModelApiOf(fakeVscodeModule().module)!, controller);

    before(async () => {
        await controller.initialize();
        await controller.startServer();
    });
    after(async () => {
        provider.dispose();
        await controller.dispose();
        fs.rmSync(folder, {recursive: true, force: true});
    });

    it("lists every model of the folder before any is loaded, then answers with the one picked, loading it", async () => {
        const deadline = Date.now() + 10_000;
        // The context of each comes from its file's header, read as soon as the library lists it.
        while (provider.provideLanguageModelChatInformation().some((info) => info.maxInputTokens === 3072) && Date.now() < deadline)
            await new Promise((resolve) => setTimeout(resolve, 100));
        const list = provider.provideLanguageModelChatInformation();
        assert.deepEqual(list.map((info) => [info.id, info.maxInputTokens]), [["stories260K", 1536], ["stories260K-think", 1536]]);
        const parts: unknown[] = [];
        const {token} = cancellationSource();
        for (const model of list) {
            const messages = [{role: 1, content: [new TextPart("Once upon a time")], name: undefined}];
            await provider.provideLanguageModelChatResponse(model, messages, {toolMode: 1, modelOptions: {maxTokens: 8}},
                {report: (part) => parts.push(part)}, token);
            const rows = libraryModelRows(controller.state.library!);
            assert.deepEqual(rows.map((row) => row.contextValue),
                list.map((other) => (other.id === model.id ? "libraryModel.loaded" : "libraryModel")), "one loaded at a time");
        }
        assert.ok(parts.length > 0);
    });
});
