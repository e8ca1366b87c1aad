import assert from "node:assert/strict";
import {test} from "node:test";
import {HostController} from "../../../../src/vscode/controller/HostController.js";
import {readSettings} from "../../../../src/vscode/settings/extensionSettings.js";
import {ServerStats} from "../../../../src/vscode/status/ServerStats.js";
import {formatStatus} from "../../../../src/vscode/status/statusView.js";
import {models} from "../../../helpers/paths.js";
import {createResponse} from "../../../helpers/createResponse.js";

test("status bar model: a real prompt's evaluation shows as progress, then leaves when tokens come", async () => {
    const stats = new ServerStats();
    const {settings} = readSettings(
        (key) => ({threads: 1, parallel: 1, contextSize: 2048, "server.port": 0} as Record<string, unknown>)[key]
    );
    const controller = new HostController(settings, {
        apiKey: async () => "sk-test",
        resolveModelPath: (raw) => raw,
        log: () => undefined,
        onRequest: () => undefined,
        onPromptProgress: (id, progress) => stats.recordPromptProgress(id, progress)
    });
    controller.onHost((host) => stats.attach(host));
    const texts: string[] = [];
    stats.onChange(() => {
        const state = controller.state;
        texts.push(formatStatus(stats.statusModel(state, 0, null)).text);
    });
    try {
        await controller.initialize();
        await controller.loadModel(models.chatml);
        const story = "Once upon a time there was a little girl named Lily. She liked to play in the park. ".repeat(16);
        const response = await createResponse(controller.host.responses, "owner", {model: "local", input: story, max_output_tokens: 8});
        const prompts = texts.filter((text) => text.includes(": prompt "));
        assert.ok(prompts.length > 0, `no prompt progress among ${texts.length} renders`);
        assert.match(prompts[0]!,
            new RegExp(`^\\$\\(sync~spin\\) stories260K: prompt \\d+/${response.usage!.input_tokens} tokens \\(\\d+%\\)$`));
        assert.equal(stats.statusModel(controller.state, 0, null).prompt, null, "gone once generated");
        assert.doesNotMatch(texts.at(-1)!, /: prompt /, "the status bar moved on");
    } finally {
        await controller.dispose();
        stats.dispose();
    }
});
