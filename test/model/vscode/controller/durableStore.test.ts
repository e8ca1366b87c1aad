import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {test} from "node:test";
import {HostController} from "../../../../src/vscode/controller/HostController.js";
import {readSettings} from "../../../../src/vscode/settings/extensionSettings.js";
import {models} from "../../../helpers/paths.js";
import type {ResponseObject} from "../../../../src/protocol/wire.js";
import {createResponse} from "../../../helpers/createResponse.js";

/** A controller as the extension builds one, its store in a global-storage-like folder. */
function controller(dataDir: string): HostController {
    const {settings} = readSettings(
        (key) => ({threads: 1, parallel: 1, contextSize: 2048, "server.port": 0} as Record<string, unknown>)[key]
    );
    return new HostController(settings,
        {apiKey: async () => "sk-test", resolveModelPath: (raw) => raw, log: () => undefined, onRequest: () => undefined, dataDir});
}

test("extension core: stored responses survive a window reload (a new controller on the same folder); Clear Response Store "
    + "empties the disk", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-vscode-data-"));
    const before = controller(dataDir);
    let created: ResponseObject;
    try {
        await before.initialize();
        await before.loadModel(models.chatml);
        await before.startServer();
        created = await createResponse(before.host.responses, "owner", {model: "local", input: "Tell me a story.", max_output_tokens: 6});
    } finally {
        await before.dispose();
    }

    /** The next window: a new controller on the folder, its store restored before any server start. */
    const reopened = async (check: (host: HostController["host"]) => void) => {
        const next = controller(dataDir);
        try {
            await next.initialize();
            await next.host.openStorage();
            check(next.host);
        } finally {
            await next.dispose();
        }
    };
    await reopened((host) => {
        assert.deepEqual(host.store.get("owner", created.id)?.response, created);
        assert.equal(host.store.clear(), 1);
    });
    await reopened((host) => assert.equal(host.store.stats().entries, 0, "Clear Response Store reached the disk"));
});
