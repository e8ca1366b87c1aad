import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {test} from "node:test";
import OpenAI from "openai";
import {HostController} from "../../../../src/vscode/controller/HostController.js";
import {readSettings} from "../../../../src/vscode/settings/extensionSettings.js";
import {chatModelInformation} from "../../../../src/vscode/chatProvider/chatModelInformation.js";
import {models} from "../../../helpers/paths.js";
import {chunk, scriptedUpstream, sseHead} from "../../../helpers/scriptedUpstream.js";

/**
 * The editor serving a models folder and an upstream together (`localResponses.models.directory` with
 * `localResponses.upstream.urls` and the local engine), as the CLI's `--models-dir` beside `--upstream` does: one list,
 * each request routed by its model name, the local model on the real engine.
 */
test("the editor lists the folder's models and the upstream's on one endpoint, and each answers its own name", async () => {
    const upstream = await scriptedUpstream(() => (_req, res) => {
        sseHead(res);
        res.end(`${chunk({content: "upstream says hi"}, "stop")}data: [DONE]\n\n`);
    });
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "lr-editor-beside-"));
    fs.symlinkSync(models.chatml, path.join(folder, path.basename(models.chatml)));
    const values: Record<string, unknown> = {
        threads: 1, parallel: 1, contextSize: 2048, "server.port": 0, "models.directory": folder, "upstream.urls": [upstream.url]
    };
    const {settings, problems} = readSettings((key) => values[key]);
    assert.deepEqual(problems, []);
    const controller = new HostController(settings, {
        apiKey: async () => "sk-client", upstreamApiKey: async () => null, resolveModelPath: (raw) => raw,
        log: () => undefined, onRequest: () => undefined
    });
    try {
        await controller.initialize();
        await controller.startServer();
        const state = controller.state;
        assert.equal(state.server, "listening", state.lastError ?? "");
        assert.deepEqual(state.library?.map((model) => [model.id, model.upstreamHosts != null]),
            [["stories260K", false], ["scripted", true]]);
        // The editor's chat offers both, the upstream's with the context it reports.
        const chat = chatModelInformation(state);
        assert.deepEqual(chat.map((info) => info.id), ["stories260K", "scripted"]);

        const client = new OpenAI({apiKey: "sk-client", baseURL: state.endpoint!, maxRetries: 0});
        const remote = await client.responses.create({model: "scripted", input: "hi"});
        assert.deepEqual([remote.model, remote.output_text], ["scripted", "upstream says hi"]);
        const local = await client.responses.create({model: "stories260K", input: "Once upon a time", max_output_tokens: 8});
        assert.equal(local.model, "stories260K");
        assert.equal(upstream.requests.length, 1, "the local model's request stayed here");
        const listed = await client.models.list();
        assert.deepEqual(listed.data.map((model) => [model.id, model.owned_by]),
            [["stories260K", "local-responses"], ["scripted", "upstream"]]);
    } finally {
        await controller.dispose();
        await upstream.close();
        fs.rmSync(folder, {recursive: true, force: true});
    }
});
