// The extension in a real VS Code (code-server 4.139.1), driven through headless Chromium as a person would.
// Prerequisites: bash scripts/e2e-setup.sh && node scripts/package-vsix.mjs   (or: npm run e2e)
// Screenshots and the extension's log go to test-artifacts/vscode-e2e/.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {after, before, test} from "node:test";
import OpenAI from "openai";
import {CodeServer} from "./CodeServer.js";
import {Workbench} from "./Workbench.js";

const repo = path.resolve(import.meta.dirname, "../..");
const tools = process.env.LOCAL_RESPONSES_TOOLS ?? path.join(repo, ".tools/vscode-e2e");
const state = path.join(repo, ".e2e/vscode");
const artifacts = path.join(repo, "test-artifacts/vscode-e2e");
const modelPath = path.resolve(repo, "../shared/models/stories260K.gguf");
const pkg = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as {name: string, version: string};
const vsix = path.join(repo, `${pkg.name}-linux-x64-${pkg.version}.vsix`);

let server: CodeServer;
let workbench: Workbench;
let apiKey = "";
let endpoint = "";
let streamedResponseId = "";
let streamedText = "";

before(async () => {
    assert.ok(fs.existsSync(vsix), `${vsix} is missing: run 'node scripts/package-vsix.mjs' first`);
    fs.rmSync(artifacts, {recursive: true, force: true});
    server = new CodeServer({tools, state});
    // One thread and two sequences: the CI machine has two cores and other work on them.
    server.prepare(vsix, {}, {"localResponses.server.port": 0, "localResponses.threads": 1, "localResponses.parallel": 2, "localResponses.jobs.workers": 1});
    const url = await server.start();
    workbench = await Workbench.open(url, artifacts);
});

after(async () => {
    fs.mkdirSync(artifacts, {recursive: true});
    if (server != null)
        fs.writeFileSync(path.join(artifacts, "extension-output.log"), server.outputChannelLog("Local Responses"));
    await workbench?.close();
    await server?.stop();
});

test("the status bar shows the extension without a model, and activation loaded nothing", async () => {
    const text = await workbench.waitForStatus(/Local Responses: no model/, 90_000);
    assert.match(text, /no model/);
    await workbench.screenshot("no-model");
});

test("Load Model… from the palette loads the shared model and the status bar turns ready", async () => {
    await workbench.runCommand("Local Responses: Load Model…");
    // No recent models yet: the file dialog opens (code-server's simple dialog: a path input).
    await workbench.answerQuickInput(modelPath);
    const text = await workbench.waitForStatus(/stories260K: ready/);
    assert.match(text, /stories260K: ready/);
    await workbench.notification(/stories260K loaded, serving on/).waitFor({timeout: 15_000});
    await workbench.screenshot("model-ready");
});

test("Copy Endpoint URL and Copy API Key put what a client needs on the clipboard", async () => {
    await workbench.runCommand("Local Responses: Copy Endpoint URL");
    await workbench.notification(/copied http:\/\/127\.0\.0\.1:\d+\/v1/).waitFor({timeout: 10_000});
    endpoint = await workbench.clipboard();
    assert.match(endpoint, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    await workbench.runCommand("Local Responses: Copy API Key");
    await workbench.notification("API key copied").waitFor({timeout: 10_000});
    apiKey = await workbench.clipboard();
    assert.match(apiKey, /^sk-local-/);
    await workbench.screenshot("key-copied");

    // The key is a real credential: without it the server refuses.
    const anonymous = new OpenAI({apiKey: "sk-wrong", baseURL: endpoint, maxRetries: 0});
    await assert.rejects(anonymous.responses.create({model: "any", input: "hi"}), (error: unknown) => (error as {status?: number}).status === 401);
});

test("a streamed request through the openai SDK moves the status bar's token stats", async () => {
    const client = new OpenAI({apiKey, baseURL: endpoint, maxRetries: 0});
    const tooltipBefore = await workbench.statusTooltip();
    assert.match(tooltipBefore, /Tokens since start: 0 in \/ 0 out/);

    let sawRate = "";
    const watcher = (async () => {
        // The status bar shows tokens/s while the response streams (throttled to a few renders per second).
        const deadline = Date.now() + 30_000;
        while (Date.now() < deadline && sawRate === "") {
            const text = await workbench.statusText().catch(() => "");
            if (/tok\/s/.test(text)) {
                sawRate = text;
                await workbench.screenshot("generating");
            }
            await workbench.page.waitForTimeout(50);
        }
    })();
    const stream = await client.responses.create({
        model: "stories260K", input: "Once upon a time", stream: true, max_output_tokens: 1800, temperature: 0.8,
        metadata: {e2e: "vscode"}
    });
    for await (const event of stream) {
        if (event.type === "response.output_text.delta")
            streamedText += event.delta;
        if (event.type === "response.completed" || event.type === "response.incomplete")
            streamedResponseId = event.response.id;
    }
    await watcher;
    assert.ok(streamedResponseId.startsWith("resp_"), "the stream ended with a terminal event");
    assert.ok(streamedText.length > 20, "the model wrote something");
    assert.match(sawRate, /stories260K: [\d.]+ tok\/s/, "the status bar showed a live rate while generating");

    await workbench.waitForStatus(/stories260K: ready/);
    const tooltipAfter = await workbench.statusTooltip();
    const match = /Tokens since start: (\d+(?:\.\d+k)?) in \/ (\d+(?:\.\d+k)?) out \(1 responses\)/.exec(tooltipAfter);
    assert.ok(match != null, `tooltip after the request: ${tooltipAfter}`);
    assert.notEqual(match[2], "0");
    await workbench.screenshot("after-stream");
});

test("the inspector lists the response and shows its output in the detail view", async () => {
    await workbench.statusItem().click();
    const view = workbench.webview();
    const row = view.locator(`tr[data-response-id='${streamedResponseId}']`);
    await row.waitFor({timeout: 30_000});
    await workbench.screenshot("inspector-list");

    // Search narrows the list to it.
    await view.locator("[data-testid='search']").click();
    await workbench.page.keyboard.type(streamedResponseId.slice(-8));
    await view.locator("tr[data-response-id]").first().waitFor();
    assert.equal(await view.locator("tr[data-response-id]").count(), 1);

    await row.click();
    const detail = view.locator(`[data-testid='detail'][data-response-id='${streamedResponseId}']`);
    await detail.waitFor({timeout: 15_000});
    const output = await detail.locator("[data-testid='output-items']").innerText();
    assert.ok(output.includes(streamedText.slice(0, 40).trim()), `detail output shows the streamed text; got: ${output.slice(0, 200)}`);
    const input = await detail.locator("[data-testid='input-items']").innerText();
    assert.match(input, /Once upon a time/);
    assert.match(await detail.innerText(), /e2e/, "metadata is shown");
    await workbench.screenshot("inspector-detail");
});

test("the inspector comes back as it was after being hidden and shown again", async () => {
    // Hide the panel by opening another editor in its place, then bring it back.
    await workbench.runCommand("Local Responses: Show Logs");
    await workbench.runCommand("Local Responses: Open Inspector");
    const detail = workbench.webview().locator(`[data-testid='detail'][data-response-id='${streamedResponseId}']`);
    await detail.waitFor({timeout: 15_000});
    assert.equal(await workbench.webview().locator("[data-testid='search'] >> nth=0").evaluate((field) => (field as HTMLInputElement).value), streamedResponseId.slice(-8));
});

test("a background job started from the SDK can be cancelled from the inspector", async (t) => {
    const view = workbench.webview();
    await view.locator("[data-testid='tab-jobs']").click();
    // Background jobs are the jobs issue's feature: until the host exposes its job manager, the inspector
    // says so, and this step is reported as skipped rather than passed.
    if (await view.locator("[data-testid='jobs-unavailable']").isVisible()) {
        await workbench.screenshot("inspector-jobs-unavailable");
        t.skip("the host exposes no background job manager yet (src/vscode/logic/hostJobs.ts)");
        return;
    }
    const client = new OpenAI({apiKey, baseURL: endpoint, maxRetries: 0});
    // The tiny model finishes a story in well under a second; what keeps a job cancellable long enough for a
    // person's click is a queue: one background worker (machine setting) and three jobs whose ~1500-token
    // prompts (distinct from their first words, so no prefix is reused) each take seconds to evaluate.
    const story = "Once upon a time there was a little girl named Lily. She liked to play in the park. ".repeat(80);
    const submitted = [];
    for (const n of [1, 2, 3])
        submitted.push(await client.responses.create({model: "stories260K", input: `Story ${n} of three. ${story}`, background: true, max_output_tokens: 300}));
    const job = submitted.at(-1)!;
    const jobRow = view.locator(`tr[data-job-id='${job.id}']`);
    await jobRow.waitFor({timeout: 15_000});
    await jobRow.click();
    await view.locator("[data-testid='job-events']").waitFor();
    await workbench.screenshot("inspector-job");
    await jobRow.locator("[data-testid='cancel-job']").click();
    await workbench.notification(/cancelled|already finished/).waitFor({timeout: 15_000});
    const finished = await client.responses.retrieve(job.id);
    assert.equal(finished.status, "cancelled");
    await workbench.screenshot("job-cancelled");
});

test("the extension host stayed responsive while generating (event-loop delay logged)", async () => {
    const log = server.outputChannelLog("Local Responses");
    const lines = log.split("\n").filter((line) => line.includes("event loop delay during generation"));
    assert.ok(lines.length > 0, "the extension logs the event-loop delay of each busy period");
    const p99 = Math.max(...lines.map((line) => Number(/p99 ([\d.]+) ms/.exec(line)?.[1] ?? Number.NaN)));
    fs.mkdirSync(artifacts, {recursive: true});
    fs.writeFileSync(path.join(artifacts, "event-loop-delay.txt"), `${lines.join("\n")}\n`);
    console.log(lines.join("\n"));
    // 10 ms resolution: the histogram's floor is the timer interval itself; a blocked loop shows hundreds of ms.
    assert.ok(p99 < 200, `p99 event-loop delay ${p99} ms`);
    // Request lines are logged, prompt text and the key never.
    assert.match(log, /POST \/v1\/responses 200 in=\d+ out=\d+ \d+ms/);
    assert.ok(!log.includes("Once upon a time"), "no prompt text in the log");
    assert.ok(!log.includes(apiKey), "no API key in the log");
});
