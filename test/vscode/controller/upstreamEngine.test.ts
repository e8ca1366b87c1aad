import assert from "node:assert/strict";
import {test} from "node:test";
import OpenAI from "openai";
import {chunk, scriptedUpstream, sseHead} from "../../helpers/scriptedUpstream.js";
import {HostController} from "../../../src/vscode/controller/HostController.js";
import {readSettings} from "../../../src/vscode/settings/extensionSettings.js";
import {describeEngine} from "../../../src/vscode/status/engineDescription.js";

test("extension core with localResponses.engine upstream: autoStart connects without a model file, the upstream key from SecretStorage is "
    + "sent, a new key applies with rebuild()", async () => {
    const upstream = await scriptedUpstream(() => (_req, res) => {
        sseHead(res);
        res.end(`${chunk({content: "upstream says hi"}, "stop")}data: [DONE]\n\n`);
    });
    let upstreamKey: string | null = "sk-upstream-first";
    const logged: string[] = [];
    const values: Record<string, unknown> = {"engine": "upstream", "upstream.urls": [upstream.url], "server.port": 0, "parallel": 1};
    const {settings, problems} = readSettings((key) => values[key]);
    assert.deepEqual(problems, []);
    const controller = new HostController(settings, {
        apiKey: async () => "sk-client", upstreamApiKey: async () => upstreamKey, resolveModelPath: (raw) => raw,
        log: (line) => logged.push(line), onRequest: () => undefined
    });
    try {
        await controller.initialize();
        const state = controller.state;
        assert.equal(state.server, "listening", state.lastError ?? "");
        assert.equal(state.engineKind, "upstream");
        assert.equal(state.model?.id, "scripted", "the upstream's first model, no file");
        assert.match(describeEngine(state.engineKind, state.model), /^upstream · scripted on http:\/\/127\.0\.0\.1:\d+$/);

        const client = new OpenAI({apiKey: "sk-client", baseURL: state.endpoint!, maxRetries: 0});
        const first = await client.responses.create({model: "scripted", input: "hi"});
        assert.equal(first.output_text, "upstream says hi");
        assert.equal(upstream.headers.at(-1)!.authorization, "Bearer sk-upstream-first");

        // Set Upstream API Key…: the secret changes, the core is rebuilt, the server comes back where it was.
        upstreamKey = "sk-upstream-second";
        assert.equal(await controller.rebuild(), "model reloaded and server restarted");
        const again = new OpenAI({apiKey: "sk-client", baseURL: controller.state.endpoint!, maxRetries: 0});
        assert.equal((await again.responses.create({model: "scripted", input: "hi"})).output_text, "upstream says hi");
        assert.equal(upstream.headers.at(-1)!.authorization, "Bearer sk-upstream-second");
        assert.ok(!logged.join("\n").includes("sk-upstream-"), "the upstream key is never logged");
    } finally {
        await controller.dispose();
        await upstream.close();
    }
});

test("describeEngine: local, upstream not connected, upstream with its model and servers", () => {
    assert.equal(describeEngine("local", null), "local (this machine)");
    assert.equal(describeEngine("upstream", null), "upstream (not connected)");
    assert.equal(describeEngine("upstream",
        {id: "qwen", path: "gpu-a:8000,gpu-b:8000", contextSize: 8192, sequences: 4, trainContextSize: 8192, chatWrapper: "upstream qwen"}),
    "upstream · qwen on gpu-a:8000,gpu-b:8000");
});
