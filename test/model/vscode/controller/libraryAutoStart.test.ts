import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {test} from "node:test";
import OpenAI from "openai";
import {HostController} from "../../../../src/vscode/controller/HostController.js";
import {canServe} from "../../../../src/vscode/controller/controllerState.js";
import {readSettings} from "../../../../src/vscode/settings/extensionSettings.js";
import {ServerStats} from "../../../../src/vscode/status/ServerStats.js";
import {formatStatus} from "../../../../src/vscode/status/statusView.js";
import {models} from "../../../helpers/paths.js";

/**
 * The editor with a models folder and no model file (`localResponses.models.directory` alone, as Serve a Models
 * Folder… leaves it): the server starts with the editor (`autoStart`), nothing loaded, and each request loads its model.
 * Measured in code-server before: the server stayed stopped and Start Server warned of 503s that a library never gives.
 */
test("a models folder alone starts the server on autoStart and after a rebuild; requests load their models", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "lr-editor-folder-only-"));
    for (const file of [models.chatml, models.qwen])
        fs.symlinkSync(file, path.join(folder, path.basename(file)));
    const values: Record<string, unknown> = {threads: 1, parallel: 1, contextSize: 2048, "server.port": 0, "models.directory": folder};
    const {settings} = readSettings((key) => values[key]);
    assert.equal(settings.autoStart, true, "the default");
    const controller = new HostController(settings, {
        apiKey: async () => "sk-client", resolveModelPath: (raw) => raw, log: () => undefined, onRequest: () => undefined
    });
    try {
        await controller.initialize();
        const state = controller.state;
        assert.equal(state.server, "listening", state.lastError ?? "");
        assert.equal(state.model, null, "nothing loaded before a request");
        assert.ok(canServe(state), "Start Server has nothing to warn about");
        assert.equal(formatStatus(new ServerStats().statusModel(state, 0, null)).state, "ready");

        const client = new OpenAI({apiKey: "sk-client", baseURL: state.endpoint!, maxRetries: 0});
        const answer = await client.responses.create({model: "stories260K-qwen", input: "Once upon a time", max_output_tokens: 8});
        assert.equal(answer.model, "stories260K-qwen");
        assert.deepEqual(controller.state.library?.filter((model) => model.status === "loaded").map((model) => model.id),
            ["stories260K-qwen"]);

        // A server the person stopped stays stopped when a library setting changes.
        await controller.stopServer();
        await controller.applySettings({...controller.currentSettings, maxLoadedModels: 1});
        assert.equal(controller.state.server, "stopped");
    } finally {
        await controller.dispose();
    }

    // A first run with no model: the server waits; a models folder given then (Serve a Models Folder…) starts it.
    const empty = readSettings((key) => ({...values, "models.directory": undefined})[key]).settings;
    const fresh = new HostController(empty, {
        apiKey: async () => "sk-client", resolveModelPath: (raw) => raw, log: () => undefined, onRequest: () => undefined
    });
    try {
        await fresh.initialize();
        assert.equal(fresh.state.server, "stopped");
        assert.ok(!canServe(fresh.state));
        await fresh.applySettings({...fresh.currentSettings, modelsDir: folder});
        assert.equal(fresh.state.server, "listening", fresh.state.lastError ?? "");
        assert.deepEqual(fresh.state.library?.map((model) => model.id), ["stories260K", "stories260K-qwen"]);
    } finally {
        await fresh.dispose();
        fs.rmSync(folder, {recursive: true, force: true});
    }
});
