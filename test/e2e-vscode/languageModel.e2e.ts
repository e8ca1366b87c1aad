// The served model in VS Code's own chat: another extension (test/e2e-vscode/lmProbe) calls vscode.lm on it in a real
// VS Code (code-server 4.139.1 = VS Code 1.139), as any extension would; the model answers in process.
// Prerequisites: bash scripts/e2e-setup.sh && node scripts/package-vsix.mjs   (or: npm run e2e)
// Screenshots and the extension's log go to test-artifacts/vscode-e2e-lm/.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {after, before, test} from "node:test";
import {CodeServer, freePort} from "./CodeServer.js";
import {modelPath, suiteFolders, tools, vsix} from "./e2ePaths.js";
import {LmProbe, type ProbeModel, type ProbePart} from "./lmProbeClient.js";
import {copiedConnection} from "./probeEndpoint.js";
import {closeSuite} from "./suiteTeardown.js";
import {Workbench} from "./Workbench.js";

// A state folder of its own: the workbench e2e may run beside it.
const {state, artifacts} = suiteFolders("vscode-lm", "vscode-e2e-lm");

let server: CodeServer;
let workbench: Workbench;
let lmProbe: LmProbe;

/**
 * What the server says of its engine, read over HTTP with the endpoint and key a person copies (Copy Endpoint URL,
 * Copy API Key): the generations stopped by a cancel, and the busy sequences.
 */
async function serverClient() {
    const {endpoint, apiKey} = await copiedConnection(workbench);
    const headers = {authorization: `Bearer ${apiKey}`};
    return {
        cancelledGenerations: async () => {
            const metrics = await (await fetch(`${endpoint}/metrics`, {headers})).text();
            return Number(/^local_responses_generations_aborted_total\{reason="cancelled"\} (\d+)$/m.exec(metrics)?.[1] ?? Number.NaN);
        },
        busySequences: async () => {
            const status = await (await fetch(`${endpoint}/status`, {headers})).json() as {engine: {sequences_busy: number}};
            return status.engine.sequences_busy;
        }
    };
}

/** Runs one of the probe's commands from the palette and reads what it wrote. */
function probe<T>(command: "models" | "chat" | "cancel", title: string, timeoutMs = 60_000): Promise<T> {
    return lmProbe.run<T>(command, title, timeoutMs);
}

/** Asks the probe for the models until it lists `count` of them (a settings change applies within a second or two). */
async function waitForModels(count: number): Promise<void> {
    const deadline = Date.now() + 20_000;
    let models: ProbeModel[] = [];
    while (Date.now() < deadline) {
        models = (await probe<{models: ProbeModel[]}>("models", "LM Probe: Models")).models;
        if (models.length === count)
            return;
        await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.fail(`the probe listed ${models.length} models, not ${count}`);
}

before(async () => {
    assert.ok(fs.existsSync(vsix), `${vsix} is missing: run 'node scripts/package-vsix.mjs' first`);
    fs.rmSync(artifacts, {recursive: true, force: true});
    server = new CodeServer({tools, state});
    // The project's e2e hides AI features; the editor's language models are one: on here. The model loads at startup
    // (autoStart with a model path), one thread and one sequence.
    server.prepare(vsix, {"chat.disableAIFeatures": false}, {
        "localResponses.model.path": modelPath, "localResponses.server.port": await freePort(), "localResponses.threads": 1,
        "localResponses.parallel": 1, "localResponses.contextSize": 2048
    });
    const probeVsix = path.join(state, "lm-probe.vsix");
    server.packageExtension(path.join(import.meta.dirname, "lmProbe"), probeVsix);
    server.installExtension(probeVsix);
    workbench = await Workbench.open(await server.start(), artifacts);
    lmProbe = new LmProbe(workbench, server.workspace);
});

after(async () => {
    await closeSuite(server, workbench, artifacts);
});

test("another extension's selectChatModels finds the loaded model with its token limits", async () => {
    await workbench.waitForStatus(/stories260K: ready/, 120_000);
    const {models} = await probe<{models: ProbeModel[]}>("models", "LM Probe: Models");
    assert.deepEqual(models, [{
        id: "stories260K", name: "stories260K", vendor: "local-responses", family: "llama", version: "stories260K.gguf",
        maxInputTokens: 1536
    }]);
    await workbench.screenshot("model-ready");
});

test("sendRequest streams text; toolMode Required returns a call fitting the tool's schema; its result's turn answers", async () => {
    type Chat = {text: ProbePart[], forced: ProbePart[], followUp: ProbePart[], counted: number};
    const result = await probe<Chat>("chat", "LM Probe: Chat", 120_000);
    assert.ok(result.text.length >= 2 && result.text.every((part) => part.type === "text"), `text parts: ${JSON.stringify(result.text)}`);
    const calls = result.forced.filter((part) => part.type === "toolCall");
    assert.equal(calls.length, 1, `forced: ${JSON.stringify(result.forced)}`);
    const [call] = calls;
    assert.equal(call!.name, "get_weather");
    assert.deepEqual(Object.keys(call!.input), ["city"]);
    assert.equal(typeof call!.input.city, "string");
    assert.ok((call!.input.city as string).length <= 12);
    assert.ok(result.followUp.length > 0 && result.followUp.every((part) => part.type === "text"),
        `follow-up: ${JSON.stringify(result.followUp)}`);
    assert.ok(Number.isInteger(result.counted) && result.counted > 5, `countTokens: ${result.counted}`);
    // The requests count in the status bar like HTTP ones.
    assert.match(await workbench.statusTooltip(), /Tokens since start: [1-9][\d.,k]* in \/ [1-9][\d.,k]* out/);
});

test("a cancel stops the generation at once: counted as cancelled, the sequence freed, the status bar back to ready", async () => {
    const client = await serverClient();
    const abortedBefore = await client.cancelledGenerations();
    const result = await probe<{parts: ProbePart[], error: string | null, endedAfterCancelMs: number}>("cancel", "LM Probe: Cancel");
    assert.deepEqual(result.parts, [], `the cut call is not returned (error: ${result.error})`);
    assert.ok(result.endedAfterCancelMs < 2000, `the stream ended ${result.endedAfterCancelMs} ms after the cancel`);
    assert.equal(await client.cancelledGenerations(), abortedBefore + 1, "the generation was stopped, not finished");
    assert.equal(await client.busySequences(), 0);
    await workbench.waitForStatus(/stories260K: ready/, 10_000);
});

test("the Server view says the model is in the editor's chat; the chat view's model picker lists it", async () => {
    await workbench.runCommand("View: Show Local Responses");
    const view = await workbench.sidebarView("Server");
    // The last row: the view's list renders only the rows in sight, so the keyboard goes there as a person would.
    await workbench.treeRow(view, /^State/).click();
    await workbench.page.keyboard.press("End");
    await workbench.treeRow(view, /^VS Code chat/).waitFor({timeout: 15_000});
    assert.match(await workbench.treeRow(view, /^VS Code chat/).innerText(), /on \(model picker: Local Responses\)/);
    await workbench.screenshot("server-view-vscode-chat");
    // The chat view's model picker (code-server 4.139.1 shows one: its button names the selected model).
    await workbench.runCommand("Chat: Open Chat");
    const picker = workbench.page.locator(".chat-input-toolbars .action-label, .chat-input-toolbars .monaco-dropdown")
        .filter({hasText: "stories260K"}).first();
    await picker.waitFor({timeout: 15_000});
    await picker.click();
    await workbench.page.getByText("Local Responses · this machine").first().waitFor({timeout: 10_000});
    await workbench.screenshot("chat-model-picker");
    await workbench.page.keyboard.press("Escape");
});

test("localResponses.chatProvider.enabled off withdraws the model from the editor's chat, on offers it again", async () => {
    server.updateMachineSettings({"localResponses.chatProvider.enabled": false});
    await waitForModels(0);
    server.updateMachineSettings({"localResponses.chatProvider.enabled": true});
    await waitForModels(1);
});

test("unloading the model empties the list and fires the change event", async () => {
    const before = (await probe<{changes: number, models: ProbeModel[]}>("models", "LM Probe: Models")).changes;
    await workbench.runCommand("Local Responses: Unload Model");
    await workbench.waitForStatus(/no model/, 30_000);
    const after = await probe<{changes: number, models: ProbeModel[]}>("models", "LM Probe: Models");
    assert.deepEqual(after.models, []);
    assert.ok(after.changes > before, `change events: ${before} → ${after.changes}`);
});
