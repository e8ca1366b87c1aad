// The extension in a real VS Code (code-server 4.139.1), driven through headless Chromium as a person would.
// Prerequisites: bash scripts/e2e-setup.sh && node scripts/package-vsix.mjs   (or: npm run e2e)
// Screenshots and the extension's log go to test-artifacts/vscode-e2e/.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import {after, before, test} from "node:test";
import OpenAI from "openai";
import {LoopbackFileServer} from "../helpers/LoopbackFileServer.js";
import {startLlamaServer} from "../helpers/llamaServer.js";
import {syntheticModel} from "../helpers/syntheticModel.js";
import {CodeServer, freePort} from "./CodeServer.js";
import {modelPath, suiteFolders, tools, vsix} from "./e2ePaths.js";
import {probeEndpoint} from "./probeEndpoint.js";
import {closeSuite} from "./suiteTeardown.js";
import {Workbench} from "./Workbench.js";

const {state, artifacts} = suiteFolders("vscode", "vscode-e2e");
const downloads = path.join(state, "downloads");
const sha256 = (file: string) => crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");

let server: CodeServer;
let workbench: Workbench;
/** Serves the shared model on 127.0.0.1 for Download Model… (slowly: ~8 s, time to see and cancel it). */
const modelHost = new LoopbackFileServer({file: modelPath, bytesPerSecond: 150_000});
/** Serves a full-size synthetic model (113 MB) whose header Download Model…'s fit estimate reads. */
let syntheticHost: LoopbackFileServer;
let apiKey = "";
/** Every key the server had: none may ever appear in the log. */
const keysSeen: string[] = [];
let endpoint = "";
let streamedResponseId = "";
let streamedText = "";

before(async () => {
    assert.ok(fs.existsSync(vsix), `${vsix} is missing: run 'node scripts/package-vsix.mjs' first`);
    fs.rmSync(artifacts, {recursive: true, force: true});
    server = new CodeServer({tools, state});
    await modelHost.start();
    syntheticHost = new LoopbackFileServer({file: await syntheticModel()});
    await syntheticHost.start();
    // One thread and two sequences: the CI machine has two cores and other work on them. A fixed free port
    // (not 0), so that a restarted server is found at the same endpoint, as with the default 8080.
    // Download Model…'s own entries point at the loopback hosts (the curated hf: list needs the internet).
    server.prepare(vsix, {}, {
        "localResponses.server.port": await freePort(), "localResponses.threads": 1, "localResponses.parallel": 2,
        "localResponses.jobs.workers": 1, "localResponses.model.downloadDirectory": downloads,
        "localResponses.model.catalog": [
            {label: "Loopback stories260K", uri: modelHost.url, quantization: "F32"},
            {label: "Loopback SmolLM2 135M (synthetic)", uri: syntheticHost.url, quantization: "Q8_0"}
        ]
    });
    // A Codex config a person already has: Configure Codex… must keep it.
    fs.mkdirSync(server.codexHome, {recursive: true});
    fs.writeFileSync(path.join(server.codexHome, "config.toml"), "approval_policy = \"never\"\n");
    // Claude Code settings a person already has: kept, except a key that would override the helper's (after a modal asks).
    fs.mkdirSync(server.claudeConfigDir, {recursive: true});
    fs.writeFileSync(path.join(server.claudeConfigDir, "settings.json"),
        JSON.stringify({permissions: {allow: ["Bash(npm test)"]}, env: {KEEP_ME: "1", ANTHROPIC_API_KEY: "sk-ant-not-this-one"}}, null, 2));
    const url = await server.start();
    workbench = await Workbench.open(url, artifacts);
});

after(async () => {
    await closeSuite(server, workbench, artifacts);
    await modelHost.stop();
    await syntheticHost?.stop();
});

test("the status bar shows the extension without a model, and activation loaded nothing", async () => {
    const text = await workbench.waitForStatus(/Local Responses: no model/, 90_000);
    assert.match(text, /no model/);
    await workbench.screenshot("no-model");
});

test("Load Model… from the palette loads the shared model and the status bar turns ready", async () => {
    // No recent models yet: the file dialog opens (code-server's simple dialog: a path input).
    await workbench.runCommandAndAnswer("Local Responses: Load Model…", modelPath);
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
    keysSeen.push(apiKey);
    await workbench.screenshot("key-copied");

    // The key is a real credential: without it the server refuses.
    const anonymous = new OpenAI({apiKey: "sk-wrong", baseURL: endpoint, maxRetries: 0});
    await assert.rejects(anonymous.responses.create({model: "any", input: "hi"}),
        (error: unknown) => (error as {status?: number}).status === 401);
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

    // Where its time went, and the chart of the last minutes (one generation so far).
    const timings = await detail.locator("[data-testid='timings']").innerText();
    assert.match(timings, /Queue wait\s+\d+ ms/);
    assert.match(timings, /Time to first token\s+[\d.]+ m?s/);
    assert.match(timings, /Output speed\s+[\d.]+ tokens\/s/);
    assert.match(timings, /Cached input tokens\s+\d+ of \d+/);
    assert.match(await view.locator("[data-testid='chart-summary']").innerText(),
        /^1 response in the last 10 minutes: median time to first token [\d.]+ m?s/);
    assert.ok(await view.locator("[data-testid='timing-chart'] canvas").count() >= 1, "the chart is drawn");
    await detail.locator("[data-testid='timings']").scrollIntoViewIfNeeded();
    await workbench.screenshot("inspector-timings");
});

test("the inspector comes back as it was after being hidden and shown again", async () => {
    // Hide the panel by opening another editor in its place, then bring it back.
    await workbench.runCommand("Local Responses: Show Logs");
    await workbench.runCommand("Local Responses: Open Inspector");
    const detail = workbench.webview().locator(`[data-testid='detail'][data-response-id='${streamedResponseId}']`);
    await detail.waitFor({timeout: 15_000});
    assert.equal(await workbench.webview().locator("[data-testid='search'] >> nth=0")
        .evaluate((field) => (field as HTMLInputElement).value), streamedResponseId.slice(-8));
});

test("the walkthrough's steps are done by what was done: model got, loaded, client given endpoint and key, response seen", async () => {
    await workbench.runCommand("Local Responses: Get Started");
    const walkthrough = workbench.page.locator(".gettingStartedContainer").first();
    await walkthrough.waitFor({timeout: 20_000});
    const checked = walkthrough.locator("[data-step-id] .codicon-getting-started-step-checked");
    const deadline = Date.now() + 20_000;
    while (await checked.count() < 4 && Date.now() < deadline)
        await workbench.page.waitForTimeout(200);
    await workbench.screenshot("walkthrough-done");
    // The fifth, a second model beside the first, waits for one: this window serves a single model.
    assert.equal(await checked.count(), 4, "the four steps of one model are checked, not the second model's");
    // The walkthrough's markdown is a webview too: close it, back to the inspector for what follows.
    await workbench.page.keyboard.press("Escape");
    const tab = workbench.page.locator(".tabs-container .tab").filter({hasText: "Welcome"}).first();
    await tab.hover();
    await tab.locator(".tab-actions .action-label").first().click();
    await walkthrough.waitFor({state: "hidden", timeout: 10_000});
    await workbench.runCommand("Local Responses: Open Inspector");
    await workbench.webview().locator(`[data-testid='detail'][data-response-id='${streamedResponseId}']`).waitFor({timeout: 15_000});
});

/** Starts three background jobs behind the one worker (machine setting); the later ones wait in the queue. */
async function queueBackgroundJobs(client: OpenAI, label: string) {
    // The tiny model finishes a story in well under a second; what keeps a job cancellable long enough for a
    // person's click is a queue: one background worker and three jobs whose ~1500-token prompts (distinct
    // from their first words, so no prefix is reused) each take seconds to evaluate.
    const story = "Once upon a time there was a little girl named Lily. She liked to play in the park. ".repeat(80);
    const submitted = [];
    for (const n of [1, 2, 3])
        submitted.push(
            await client.responses.create({
                model: "stories260K", input: `${label}: story ${n} of three. ${story}`, background: true, max_output_tokens: 300
            })
        );
    return submitted;
}

async function waitUntilFinished(client: OpenAI, ids: string[]): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (const id of ids)
        while (["queued", "in_progress"].includes((await client.responses.retrieve(id)).status ?? "")) {
            assert.ok(Date.now() < deadline, `${id} still running after 120 s`);
            await new Promise((resolve) => setTimeout(resolve, 250));
        }
}

const backgroundJobs: string[] = [];

test("a background job started from the SDK can be cancelled from the inspector", async () => {
    const view = workbench.webview();
    await view.locator("[data-testid='tab-jobs']").click();
    await view.locator("[data-testid='jobs-empty']").waitFor({timeout: 15_000});
    const client = new OpenAI({apiKey, baseURL: endpoint, maxRetries: 0});
    const submitted = await queueBackgroundJobs(client, "Inspector");
    backgroundJobs.push(...submitted.map((job) => job.id));
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

test("Cancel Background Job… picks a queued job and cancels it; with none left it says so", async () => {
    const client = new OpenAI({apiKey, baseURL: endpoint, maxRetries: 0});
    await workbench.clearNotifications();
    // A key may have four background responses active: let the inspector's jobs end first.
    await waitUntilFinished(client, backgroundJobs);
    const submitted = await queueBackgroundJobs(client, "Palette");
    backgroundJobs.push(...submitted.map((job) => job.id));
    const job = submitted.at(-1)!;
    await workbench.runCommand("Local Responses: Cancel Background Job…");
    const row = await workbench.quickPickRow(job.id);
    assert.match(await row.innerText(), /(queued|in_progress) · stories260K/);
    await workbench.screenshot("cancel-job-pick");
    await row.click();
    await workbench.notification(`cancelled ${job.id}`).waitFor({timeout: 15_000});
    assert.equal((await client.responses.retrieve(job.id)).status, "cancelled");

    await waitUntilFinished(client, backgroundJobs);
    await workbench.runCommand("Local Responses: Cancel Background Job…");
    await workbench.notification("no background job is queued or running").waitFor({timeout: 10_000});
    await workbench.screenshot("cancel-job-none-left");
});

test("List Stored Responses shows status, time and tokens; a row opens in the inspector, the trash button deletes", async () => {
    const client = new OpenAI({apiKey, baseURL: endpoint, maxRetries: 0});
    const doomed = await client.responses.create({model: "stories260K", input: "A cat sat on the mat.", max_output_tokens: 8});
    await workbench.clearNotifications();
    await workbench.runCommand("Local Responses: List Stored Responses");
    const row = await workbench.quickPickRow(doomed.id);
    const usage = doomed.usage!;
    assert.match(await row.innerText(),
        new RegExp(`${doomed.status} · \\d{1,2}:\\d{2}:\\d{2}[^·]* · ${usage.input_tokens} in / ${usage.output_tokens} out`));
    assert.match(await (await workbench.quickPickRow(streamedResponseId)).innerText(), /(completed|incomplete) · .+ · \d+ in \/ \d+ out/);
    await workbench.screenshot("list-responses");

    await row.hover();
    await row.locator(".action-label.codicon-trash, .action-label[aria-label='Delete']").first().click();
    await row.waitFor({state: "detached", timeout: 10_000});
    await assert.rejects(client.responses.retrieve(doomed.id), (error: unknown) => (error as {status?: number}).status === 404);

    await (await workbench.quickPickRow(streamedResponseId)).click();
    const view = workbench.webview();
    await view.locator(`[data-testid='detail'][data-response-id='${streamedResponseId}']`).waitFor({timeout: 15_000});
    assert.equal(await view.locator("[data-testid='search']").evaluate((field) => (field as HTMLInputElement).value), "",
        "the revealed response is not hidden by an old search");
    await workbench.screenshot("list-opened-in-inspector");
});

test("the sidebar: Server facts, the loaded model, responses (Enter opens, Delete deletes) and finished jobs", async () => {
    const client = new OpenAI({apiKey, baseURL: endpoint, maxRetries: 0});
    await workbench.clearNotifications();
    await workbench.runCommand("View: Show Local Responses");
    const serverView = await workbench.sidebarView("Server");
    await workbench.treeRow(serverView, `Endpoint${endpoint}`).waitFor({timeout: 15_000});
    assert.match(await workbench.treeRow(serverView, /^State/).innerText(), /listening · model ready/);
    assert.match(await workbench.treeRow(serverView, /^Context/).innerText(), /\d+ tokens × 2 sequences/);
    assert.match(await workbench.treeRow(serverView, /^Threads/).innerText(), /Threads\s*1/);
    assert.match(await workbench.treeRow(serverView, /^Queue/).innerText(), /0 waiting \(limit \d+\)/);
    const models = await workbench.sidebarView("Models");
    assert.match(await workbench.treeRow(models, "stories260K.gguf").innerText(), /loaded/);

    const responses = await workbench.sidebarView("Responses");
    const doomed = await client.responses.create({model: "stories260K", input: "A dog ran in the park.", max_output_tokens: 8});
    // Refreshed by the store's event: the newest response is the first row.
    const deadline = Date.now() + 15_000;
    while (!/completed · \d+→8 tokens|incomplete · \d+→8 tokens/.test(await responses.locator(".monaco-list-row").first().innerText()
        .catch(() => "")) && Date.now() < deadline)
        await workbench.page.waitForTimeout(200);
    const first = responses.locator(".monaco-list-row").first();
    assert.match(await first.innerText(),
        new RegExp(`${doomed.status} · ${doomed.usage!.input_tokens}→${doomed.usage!.output_tokens} tokens`));
    const jobs = await workbench.sidebarView("Jobs");
    await workbench.treeRow(jobs, /cancelled · stories260K/).waitFor({timeout: 10_000});
    await workbench.screenshot("sidebar");

    // Keyboard: Enter opens the focused response in the inspector, Delete asks and deletes it.
    await first.click();
    await workbench.webview().locator(`[data-testid='detail'][data-response-id='${doomed.id}']`).waitFor({timeout: 15_000});
    await workbench.runCommand("Local Responses: Focus on Responses View");
    await workbench.page.keyboard.press("Delete");
    await workbench.dialog().waitFor({timeout: 10_000});
    assert.match(await workbench.dialog().innerText(), new RegExp(`Delete stored response ${doomed.id}\\?`));
    await workbench.screenshot("sidebar-delete-confirm");
    await workbench.confirmDialog("Delete");
    await assert.rejects(async () => {
        const until = Date.now() + 10_000;
        while (Date.now() < until) {
            await client.responses.retrieve(doomed.id);
            await new Promise((resolve) => setTimeout(resolve, 200));
        }
    }, (error: unknown) => (error as {status?: number}).status === 404);
    await workbench.webview().locator(`[data-testid='detail'][data-response-id='${doomed.id}']`)
        .waitFor({state: "detached", timeout: 10_000});
});

test("Clear Response Store asks first, then deletes every stored response", async () => {
    const client = new OpenAI({apiKey, baseURL: endpoint, maxRetries: 0});
    await workbench.clearNotifications();
    await workbench.runCommand("Local Responses: Clear Response Store");
    await workbench.dialog().waitFor({timeout: 10_000});
    const count = Number(/Delete all (\d+) stored responses\?/.exec(await workbench.dialog().innerText())?.[1]);
    assert.ok(count >= 2, `the confirmation names the count (${count})`);
    await workbench.screenshot("clear-store-confirm");
    assert.equal((await client.responses.retrieve(streamedResponseId)).id, streamedResponseId,
        "nothing is deleted before the confirmation");

    await workbench.confirmDialog("Delete All");
    // Every job had ended before the confirmation: nothing was stored in between, so all of them went.
    await workbench.notification(`deleted ${count} stored responses`).waitFor({timeout: 10_000});
    await assert.rejects(client.responses.retrieve(streamedResponseId), (error: unknown) => (error as {status?: number}).status === 404);
    await workbench.webview().locator("[data-testid='responses-empty']").waitFor({timeout: 10_000});
    await workbench.screenshot("store-cleared");
});

test("Rotate API Key: after the confirmation the old key gets 401 and the new one from Copy API Key works", async () => {
    const oldKey = apiKey;
    await workbench.clearNotifications();
    await workbench.runCommand("Local Responses: Rotate API Key");
    await workbench.dialog().waitFor({timeout: 10_000});
    assert.match(await workbench.dialog().innerText(), /Rotate the API key\?/);
    await workbench.screenshot("rotate-confirm");
    assert.equal(await probeEndpoint(endpoint, oldKey), 200, "nothing changes before the confirmation");
    await workbench.confirmDialog("Rotate");

    await workbench.notification("API key rotated").waitFor({timeout: 10_000});
    assert.equal(await probeEndpoint(endpoint, oldKey), 401);
    await workbench.notificationButton("API key rotated", "Copy New Key").click();
    const deadline = Date.now() + 10_000;
    let fromButton = oldKey;
    while (fromButton === oldKey && Date.now() < deadline)
        fromButton = await workbench.clipboard();

    await workbench.runCommand("Local Responses: Copy API Key");
    await workbench.notification("API key copied").waitFor({timeout: 10_000});
    apiKey = await workbench.clipboard();
    keysSeen.push(apiKey);
    assert.match(apiKey, /^sk-local-/);
    assert.notEqual(apiKey, oldKey);
    assert.equal(fromButton, apiKey, "Copy New Key and Copy API Key copy the same key");
    assert.equal(await probeEndpoint(endpoint, apiKey), 200);
    await workbench.screenshot("key-rotated");
});

test("Configure Codex… writes the provider block into CODEX_HOME/config.toml, with the key's variable and not the key, and the model's "
    + "context window", async () => {
    await workbench.clearNotifications();
    await workbench.runCommandAndAnswer("Local Responses: Configure Codex…", "Write to config.toml");
    await workbench.notification(/Codex now uses Local Responses/).waitFor({timeout: 10_000});
    const toml = fs.readFileSync(path.join(server.codexHome, "config.toml"), "utf8");
    assert.match(toml, /^approval_policy = "never"$/m, "what was in the file stays");
    assert.match(toml, /^model_provider = "local-responses"$/m);
    assert.match(toml, /^\[model_providers\.local-responses\]$/m);
    assert.ok(toml.includes(`base_url = "${endpoint}"`), toml);
    assert.match(toml, /^env_key = "LOCAL_RESPONSES_API_KEY"$/m);
    assert.match(toml, /^wire_api = "responses"$/m);
    // The loaded model's context (2048 for stories260K): Codex compacts before the model would refuse a turn.
    assert.match(toml, /^model_context_window = 2048$/m);
    assert.match(toml, /^model_auto_compact_token_limit = 1638$/m);
    for (const key of keysSeen)
        assert.ok(!toml.includes(key), "no API key in config.toml");
    assert.ok(!toml.includes("sk-local-"));

    await workbench.notificationButton(/Codex now uses Local Responses/, "Open config.toml").click();
    await workbench.page.locator(".monaco-editor .view-lines").filter({hasText: "env_key"}).first().waitFor({timeout: 10_000});
    await workbench.screenshot("codex-config");
});

test("Configure Claude Code… merges the origin, the model and a key helper into CLAUDE_CONFIG_DIR/settings.json, keeping the rest "
    + "and no key", async () => {
    await workbench.clearNotifications();
    await workbench.runCommandAndAnswer("Local Responses: Configure Claude Code…", "Write to settings.json");
    // The person's ANTHROPIC_API_KEY is theirs: a modal asks before it is taken out.
    await workbench.dialog().waitFor({timeout: 10_000});
    assert.match(await workbench.dialog().innerText(), /sets ANTHROPIC_API_KEY in its env/);
    await workbench.confirmDialog("Remove ANTHROPIC_API_KEY");
    await workbench.notification(/Claude Code now uses Local Responses/).waitFor({timeout: 10_000});
    const text = fs.readFileSync(path.join(server.claudeConfigDir, "settings.json"), "utf8");
    const settings = JSON.parse(text) as {permissions: unknown, env: Record<string, string>, apiKeyHelper: string};
    assert.deepEqual(settings.permissions, {allow: ["Bash(npm test)"]}, "what was in the file stays");
    assert.equal(settings.env.KEEP_ME, "1");
    // Claude Code posts to $ANTHROPIC_BASE_URL/v1/messages: the origin, without the endpoint's /v1.
    assert.equal(settings.env.ANTHROPIC_BASE_URL, endpoint.replace(/\/v1$/, ""));
    assert.equal(settings.env.ANTHROPIC_MODEL, "stories260K");
    assert.equal(settings.env.ANTHROPIC_SMALL_FAST_MODEL, "stories260K");
    assert.equal(settings.env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, "1");
    assert.equal(settings.env.CLAUDE_CODE_ATTRIBUTION_HEADER, "0");
    assert.match(settings.env.CLAUDE_CODE_AUTO_COMPACT_WINDOW ?? "", /^\d+$/, "the served context is the compaction window");
    assert.equal(settings.env.CLAUDE_CODE_MAX_CONTEXT_TOKENS, settings.env.CLAUDE_CODE_AUTO_COMPACT_WINDOW);
    assert.equal(settings.apiKeyHelper, "printenv LOCAL_RESPONSES_API_KEY");
    assert.ok(!("ANTHROPIC_API_KEY" in settings.env), "a key that would override the helper's is taken out, once the person agreed");
    assert.match(fs.readFileSync(path.join(server.claudeConfigDir, "settings.json.local-responses.bak"), "utf8"), /sk-ant-not-this-one/,
        "the previous file is kept");
    for (const key of keysSeen)
        assert.ok(!text.includes(key), "no API key in settings.json");
    assert.ok(!text.includes("sk-"));

    await workbench.notificationButton(/Claude Code now uses Local Responses/, "Open settings.json").click();
    await workbench.page.locator(".monaco-editor .view-lines").filter({hasText: "apiKeyHelper"}).first().waitFor({timeout: 10_000});
    await workbench.screenshot("claude-config");
});

test("Unload Model: the status bar says so, a request gets 503 model_not_loaded; Load Model… offers it again", async () => {
    const client = new OpenAI({apiKey, baseURL: endpoint, maxRetries: 0});
    await workbench.clearNotifications();
    await workbench.runCommand("Local Responses: Unload Model");
    await workbench.notification(/unloaded stories260K\. Requests get 503/).waitFor({timeout: 15_000});
    await workbench.waitForStatus(/Local Responses: no model \(serving 503\)/, 15_000);
    await assert.rejects(client.responses.create({model: "stories260K", input: "hi"}),
        (error: unknown) => (error as {status?: number}).status === 503 && (error as {code?: string}).code === "model_not_loaded");
    await workbench.screenshot("model-unloaded");

    // A command with nothing to do says why.
    await workbench.runCommand("Local Responses: Unload Model");
    await workbench.notification("no model is loaded").waitFor({timeout: 10_000});

    await workbench.runCommandAndAnswer("Local Responses: Load Model…", "stories260K.gguf");
    await workbench.waitForStatus(/stories260K: ready/);
    const served = await client.responses.create({model: "stories260K", input: "hi", max_output_tokens: 4});
    assert.ok(served.usage!.output_tokens > 0, "served again");
});

test("Stop / Start / Restart Server: the endpoint refuses, Copy Endpoint URL says why, then it serves again", async () => {
    await workbench.clearNotifications();
    await workbench.runCommand("Local Responses: Stop Server");
    await workbench.notification("server stopped").waitFor({timeout: 15_000});
    await workbench.waitForStatus(/stories260K: server stopped/, 10_000);
    assert.equal(await probeEndpoint(endpoint, apiKey), "refused");
    await workbench.screenshot("server-stopped");

    await workbench.runCommand("Local Responses: Copy Endpoint URL");
    await workbench.notification("the server is stopped, so there is no endpoint to copy").waitFor({timeout: 10_000});
    await workbench.screenshot("copy-endpoint-says-why");
    await workbench.notificationButton("the server is stopped", "Start Server").click();
    await workbench.notification(`listening on ${endpoint}`).waitFor({timeout: 15_000});
    await workbench.waitForStatus(/stories260K: ready/, 10_000);
    assert.equal(await probeEndpoint(endpoint, apiKey), 200);

    await workbench.runCommand("Local Responses: Start Server");
    await workbench.notification(`already listening on ${endpoint}`).waitFor({timeout: 10_000});
    await workbench.runCommand("Local Responses: Restart Server");
    await workbench.notification(`restarted on ${endpoint}`).waitFor({timeout: 15_000});
    assert.equal(await probeEndpoint(endpoint, apiKey), 200);
    await workbench.screenshot("server-restarted");
});

test("Download Model…: the list says whether each model fits (from its header), a pick downloads with a cancellable progress, a pasted "
    + "URL loads", async () => {
    const saved = path.join(downloads, "stories260K.gguf");
    await workbench.clearNotifications();
    await workbench.runCommand("Local Responses: Download Model…");
    const synthetic = await workbench.quickPickRow("Loopback SmolLM2 135M (synthetic)");
    const deadline = Date.now() + 60_000;
    while (!/Fits: needs|Tight: needs|Too large: needs/.test(await synthetic.innerText()) && Date.now() < deadline)
        await workbench.page.waitForTimeout(250);
    const fitLine = await synthetic.innerText();
    assert.match(fitLine,
        /(Fits|Tight|Too large): needs [\d.]+ (MiB|GiB) \(weights 108\.\d MiB \+ context [\d.]+ (MiB|GiB) for 8192 tokens × 2\)/);
    assert.match(await (await workbench.quickPickRow("Qwen2.5 Coder 1.5B Instruct")).innerText(), /Q4_K_M · ~1\.04 GiB/,
        "the curated list is there too");
    await workbench.screenshot("download-catalog-fit");
    await (await workbench.quickPickRow("Loopback stories260K")).click();
    const progress = workbench.notification(/Downloading model/);
    await progress.waitFor({timeout: 30_000});
    await workbench.page.waitForFunction(() => /[\d.]+ KiB of 1\.1 MiB/.test(document.querySelector(".notifications-toasts")?.textContent
        ?? ""), undefined, {timeout: 30_000});
    await workbench.screenshot("download-progress");
    await workbench.notificationButton(/Downloading model/, "Cancel").click();
    await workbench.notification("download cancelled").waitFor({timeout: 15_000});
    assert.equal(fs.existsSync(saved), false, "a cancelled download leaves no file under the model's name");

    modelHost.setRate(600_000);
    await workbench.clearNotifications();
    await workbench.runCommandAndAnswer("Local Responses: Download Model…", modelHost.url);
    await workbench.notification(/stories260K loaded, serving on/).waitFor({timeout: 60_000});
    assert.equal(sha256(saved), sha256(modelPath));
    // code-server is a remote setup: the machine-overridable model setting lands in the machine's settings.
    const settings = ["User", "Machine"].map((scope) => fs.readFileSync(path.join(server.userData, scope, "settings.json"), "utf8"))
        .join("\n");
    assert.ok(settings.includes(`"localResponses.model.path": ${JSON.stringify(saved)}`), "the downloaded file became the model setting");
    await workbench.waitForStatus(/stories260K: ready/);
    assert.equal(await probeEndpoint(endpoint, apiKey), 200);
    await workbench.screenshot("download-loaded");
});

test("a setting changed in settings.json is applied and announced: context size reloads the model, a new port moves "
    + "the server", async () => {
    await workbench.clearNotifications();
    server.updateMachineSettings({"localResponses.contextSize": 512});
    await workbench.notification("Applied localResponses.contextSize: model reloaded and server restarted").waitFor({timeout: 60_000});
    await workbench.waitForStatus(/stories260K: ready/);
    const models = await (await fetch(`${endpoint}/models`, {headers: {authorization: `Bearer ${apiKey}`}})).json() as {
        data: {id: string, context_window: number}[]
    };
    assert.equal(models.data[0]?.context_window, 512);
    await workbench.screenshot("setting-context-size");

    const port = await freePort();
    const moved = `http://127.0.0.1:${port}/v1`;
    server.updateMachineSettings({"localResponses.server.port": port});
    await workbench.notification(`Server restarted on ${moved}`).waitFor({timeout: 30_000});
    assert.equal(await probeEndpoint(endpoint, apiKey), "refused");
    assert.equal(await probeEndpoint(moved, apiKey), 200);
    endpoint = moved;
    await workbench.screenshot("setting-port");
});

test("localResponses.engine upstream against a real llama-server: Unload disconnects (503), Load Model… picks the upstream's model, the "
    + "SDK is answered, Download Model… switches back", async () => {
    // The same shared model behind llama.cpp's own server (built once per machine into ~/.cache, never here).
    const llama = await startLlamaServer({model: modelPath, slots: 1, contextPerSlot: 1024, extraArgs: ["--alias", "upstream-stories"]});
    const client = new OpenAI({apiKey, baseURL: endpoint, maxRetries: 0});
    try {
        await workbench.clearNotifications();
        server.updateMachineSettings({"localResponses.engine": "upstream", "localResponses.upstream.urls": [`${llama.url}/v1`]});
        await workbench.notification(/Applied localResponses\.engine.*server restarted/).waitFor({timeout: 60_000});
        await workbench.waitForStatus(/upstream-stories: ready/, 30_000);

        await workbench.runCommand("Local Responses: Unload Model");
        await workbench.notification("disconnected from the upstreams (upstream-stories)").waitFor({timeout: 15_000});
        await workbench.waitForStatus(/Local Responses: upstream disconnected \(serving 503\)/, 15_000);
        await assert.rejects(client.responses.create({model: "upstream-stories", input: "hi"}),
            (error: unknown) => (error as {status?: number}).status === 503 && (error as {code?: string}).code === "model_not_loaded");
        await workbench.screenshot("upstream-disconnected");

        // Load Model… lists what the upstream serves (GET /v1/models), not GGUF files; the pick connects and is saved.
        await workbench.runCommand("Local Responses: Load Model…");
        const row = await workbench.quickPickRow("upstream-stories");
        assert.match(await row.innerText(), new RegExp(`on ${llama.url.replace(/[.]/g, "\\.")}`));
        await workbench.screenshot("upstream-load-model");
        await row.click();
        await workbench.notification(`upstream-stories connected (upstream on ${llama.url}), serving on ${endpoint}`)
            .waitFor({timeout: 30_000});
        await workbench.waitForStatus(/upstream-stories: ready/, 15_000);
        const machine = fs.readFileSync(path.join(server.userData, "Machine", "settings.json"), "utf8");
        assert.ok(machine.includes('"localResponses.upstream.model": "upstream-stories"'), "the pick became the upstream model setting");

        const answer = await client.responses.create({model: "upstream-stories", input: "Tell me a story", max_output_tokens: 8});
        assert.ok(answer.output_text.length > 0 && answer.usage!.output_tokens > 0, "llama-server wrote through the upstream engine");
        assert.match(await workbench.statusTooltip(),
            new RegExp(`Engine: upstream · upstream-stories on ${llama.url.replace(/[.]/g, "\\.")}`));

        await workbench.runCommand("View: Show Local Responses");
        const models = await workbench.sidebarView("Models");
        await workbench.treeRow(models, /upstream-stories[\s\S]*connected · upstream/).waitFor({timeout: 15_000});
        await workbench.screenshot("upstream-models-view");

        // Download Model… downloads nothing here: it offers the local engine, and switching brings the local model back.
        await workbench.clearNotifications();
        await workbench.runCommand("Local Responses: Download Model…");
        await workbench.notificationButton("fetches GGUF files for the local engine", "Switch to Local Engine").click();
        await workbench.notification("Applied localResponses.engine: model reloaded and server restarted").waitFor({timeout: 60_000});
        await workbench.waitForStatus(/stories260K: ready/);
        assert.equal(await probeEndpoint(endpoint, apiKey), 200);
    } finally {
        await llama.stop();
    }
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
    // Request lines are logged, prompt text and keys never.
    assert.match(log, /POST \/v1\/responses 200 in=\d+ out=\d+ \d+ms/);
    assert.ok(!log.includes("Once upon a time"), "no prompt text in the log");
    for (const key of keysSeen)
        assert.ok(!log.includes(key), "no API key in the log");
});

test("after Developer: Reload Window the server comes back with the same key and the inspector as it was", async () => {
    await workbench.runCommand("Local Responses: Open Inspector");
    let view = workbench.webview();
    await view.locator("[data-testid='tab-responses']").click();
    await view.locator("[data-testid='search']").click();
    await workbench.page.keyboard.type("kept-across-reload");
    await view.locator("[data-testid='tab-jobs']").click();
    await view.locator("[data-testid='jobs-table'], [data-testid='jobs-empty']").first().waitFor();
    await workbench.screenshot("before-reload");

    await workbench.reloadWindow();
    // autoStart with the model setting: the model loads again and the server listens on the same port.
    await workbench.waitForStatus(/stories260K: ready/);
    assert.equal(await probeEndpoint(endpoint, apiKey), 200, "the key survived in SecretStorage");
    view = workbench.webview();
    await view.locator("[data-testid='tab-jobs'][aria-selected='true']").waitFor({timeout: 30_000});
    await view.locator("[data-testid='tab-responses']").click();
    assert.equal(await view.locator("[data-testid='search']").evaluate((field) => (field as HTMLInputElement).value), "kept-across-reload");
    await workbench.screenshot("inspector-after-reload");
});

test("a stored response outlives Developer: Reload Window: the HTTP API, its input items, the sidebar and the inspector "
    + "still have it", async () => {
    const client = new OpenAI({apiKey, baseURL: endpoint, maxRetries: 0});
    const kept = await client.responses.create({
        model: "stories260K", input: "A bird sang in the old tree.", max_output_tokens: 8, metadata: {e2e: "reload"}
    });
    assert.ok(kept.usage != null && kept.usage.output_tokens > 0, "the model answered");
    await workbench.clearNotifications();

    // Reloaded right after the response came back: a write still on its way to disk would be lost here.
    await workbench.reloadWindow();
    await workbench.waitForStatus(/stories260K: ready/);
    assert.equal(await probeEndpoint(endpoint, apiKey), 200, "listening again with the same key");

    const fetched = await fetch(`${endpoint}/responses/${kept.id}`,
        {headers: {authorization: `Bearer ${apiKey}`}, signal: AbortSignal.timeout(10_000)});
    assert.equal(fetched.status, 200, `GET /v1/responses/${kept.id} after the reload`);
    const body = await fetched.json() as {
        id: string, status: string, output_text?: string, output: unknown[], metadata: Record<string, string>,
        usage: {output_tokens: number}
    };
    assert.equal(body.id, kept.id);
    assert.equal(body.status, kept.status);
    assert.deepEqual(body.output, JSON.parse(JSON.stringify(kept.output)), "the same output items");
    assert.deepEqual(body.metadata, {e2e: "reload"});
    assert.equal(body.usage.output_tokens, kept.usage.output_tokens);
    const inputItems = await client.responses.inputItems.list(kept.id);
    assert.match(JSON.stringify(inputItems.data), /A bird sang in the old tree\./, "its input items too");

    // The sidebar's Responses view lists it first (nothing newer was stored), and Enter opens it in the inspector.
    await workbench.runCommand("View: Show Local Responses");
    const responses = await workbench.sidebarView("Responses");
    const first = responses.locator(".monaco-list-row").first();
    const description = `${kept.status} · ${kept.usage.input_tokens}→${kept.usage.output_tokens} tokens`;
    const deadline = Date.now() + 30_000;
    while (!(await first.innerText().catch(() => "")).includes(description) && Date.now() < deadline)
        await workbench.page.waitForTimeout(200);
    assert.ok((await first.innerText()).includes(description), `the first row shows '${description}'; got: ${await first.innerText()}`);
    await first.click();
    const detail = workbench.webview().locator(`[data-testid='detail'][data-response-id='${kept.id}']`);
    await detail.waitFor({timeout: 15_000});
    assert.match(await detail.locator("[data-testid='input-items']").innerText(), /A bird sang in the old tree\./);
    assert.match(await detail.innerText(), /reload/, "metadata is shown");
    await workbench.screenshot("stored-after-reload");
});
