// A model library in a real VS Code (code-server 4.139.1 = VS Code 1.139): localResponses.models.directory serves two
// models on one endpoint, another extension (test/e2e-vscode/lmProbe) reaches each through vscode.lm by its id, and the
// server says which one answered. Then two native aborts (docs/models.md "A crash inside a model"): one inside a model,
// which runs in a process of its own, and one of the extension host, which runs the server.
// Prerequisites: npm run build && npm run e2e:prepare. Screenshots, the extension's log and the crash's timings go to
// test-artifacts/vscode-e2e-lm-library/.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {after, before, test} from "node:test";
import {models} from "../helpers/paths.js";
import {CodeServer, freePort} from "./CodeServer.js";
import {suiteFolders, tools, vsix} from "./e2ePaths.js";
import {LmProbe, type ProbeModel, type ProbePart, type StartedProbeCommand} from "./lmProbeClient.js";
import {copiedConnection, probeEndpoint} from "./probeEndpoint.js";
import {closeSuite} from "./suiteTeardown.js";
import {Workbench} from "./Workbench.js";

const {state, artifacts} = suiteFolders("vscode-lm-library", "vscode-e2e-lm-library");
/** The library's folder: links to two of the shared models (made after `prepare`, which empties the state folder). */
const modelsDir = path.join(state, "models");
const chatml = "stories260K";
const qwen = "stories260K-qwen";
/** A forced call that cannot end early: its grammar asks for hundreds of words (seconds of generation). */
const words = {
    name: "write_words", description: "Writes many words",
    schema: {
        type: "object", properties: {words: {type: "array", minItems: 300, items: {type: "string", minLength: 5}}}, required: ["words"]
    }
};

let server: CodeServer;
let workbench: Workbench;
let lmProbe: LmProbe;
let connection: {endpoint: string, apiKey: string};

type ModelsAnswer = {pid: number, uptimeMs: number, models: ProbeModel[]};
type AskAnswer = {model: string, parts: ProbePart[], ms: number};

async function api<T>(method: "GET" | "POST", route: string, body?: unknown): Promise<T> {
    const response = await fetch(`${connection.endpoint}${route}`, {
        method, headers: {authorization: `Bearer ${connection.apiKey}`, "content-type": "application/json"},
        body: body == null ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(60_000)
    });
    assert.equal(response.status, 200, `${method} ${route}: ${response.status}`);
    return await response.json() as T;
}

/** Each library model's state as `GET /v1/models` reports it, by id. */
async function modelStates(): Promise<Record<string, string>> {
    const {data} = await api<{data: {id: string, status: string}[]}>("GET", "/models");
    return Object.fromEntries(data.map((model) => [model.id, model.status]));
}

/** The generations `/metrics` counts under each model's id (every status). */
async function generationsByModel(): Promise<Record<string, number>> {
    const response = await fetch(`${connection.endpoint}/metrics`, {headers: {authorization: `Bearer ${connection.apiKey}`}});
    const counts: Record<string, number> = {};
    const series = /^local_responses_model_generations_total\{model="([^"]+)",[^}]*\} (\d+)$/gm;
    for (const [, model, count] of (await response.text()).matchAll(series))
        counts[model!] = (counts[model!] ?? 0) + Number(count);
    return counts;
}

/** Another extension's request to one model by its id, answered in full. */
async function ask(model: string): Promise<AskAnswer> {
    return lmProbe.run<AskAnswer>("ask", "LM Probe: Ask", 120_000, {model, prompt: "Once upon a time", maxTokens: 12});
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!await check()) {
        if (Date.now() > deadline) {
            await workbench.screenshot(`timeout-${what.replace(/\W+/g, "-")}`);
            assert.fail(`${what}: not within ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
}

const listening = () => /server: listening on/.test(server.outputChannelLog("Local Responses"));

before(async () => {
    assert.ok(fs.existsSync(vsix), `${vsix} is missing: run 'npm run e2e:prepare' first`);
    fs.rmSync(artifacts, {recursive: true, force: true});
    server = new CodeServer({tools, state});
    server.prepare(vsix, {"chat.disableAIFeatures": false}, {
        "localResponses.models.directory": modelsDir,
        // The library's default model: it loads at start, and with it the server starts (a library alone waits for Start Server).
        "localResponses.model.path": path.join(modelsDir, `${chatml}.gguf`),
        // One model loaded at a time: each request's model is the one loaded after it.
        "localResponses.models.maxLoaded": 1,
        "localResponses.server.port": await freePort(), "localResponses.threads": 1, "localResponses.parallel": 2,
        "localResponses.contextSize": 2048
    });
    fs.mkdirSync(modelsDir, {recursive: true});
    fs.symlinkSync(models.chatml, path.join(modelsDir, `${chatml}.gguf`));
    fs.symlinkSync(models.qwen, path.join(modelsDir, `${qwen}.gguf`));
    const probeVsix = path.join(state, "lm-probe.vsix");
    server.packageExtension(path.join(import.meta.dirname, "lmProbe"), probeVsix);
    server.installExtension(probeVsix);
    workbench = await Workbench.open(await server.start(), artifacts);
    lmProbe = new LmProbe(workbench, server.workspace);
    await until("the server listening", listening, 120_000);
    connection = await copiedConnection(workbench);
});

after(async () => {
    await closeSuite(server, workbench, artifacts);
});

test("selectChatModels lists both library models with their token limits", async () => {
    const {models: listed} = await lmProbe.run<ModelsAnswer>("models", "LM Probe: Models");
    assert.deepEqual(listed.map(({id, vendor, version, maxInputTokens}) => ({id, vendor, version, maxInputTokens})), [
        {id: chatml, vendor: "local-responses", version: `${chatml}.gguf`, maxInputTokens: 1536},
        {id: qwen, vendor: "local-responses", version: `${qwen}.gguf`, maxInputTokens: 1536}
    ]);
    assert.deepEqual(await modelStates(), {[chatml]: "loaded", [qwen]: "unloaded"}, "the default model loads at start");
});

test("a request to each model answers from that model: the server loads the one asked and counts it under its id", async () => {
    const before = await generationsByModel();
    const first = await ask(qwen);
    assert.equal(first.model, qwen);
    assert.ok(first.parts.length > 0 && first.parts.every((part) => part.type === "text"), JSON.stringify(first.parts));
    assert.deepEqual(await modelStates(), {[chatml]: "unloaded", [qwen]: "loaded"}, "the request loaded its model (the other made room)");
    assert.deepEqual(await generationsByModel(), {...before, [qwen]: (before[qwen] ?? 0) + 1});

    const second = await ask(chatml);
    assert.equal(second.model, chatml);
    assert.ok(second.parts.length > 0 && second.parts.every((part) => part.type === "text"), JSON.stringify(second.parts));
    assert.deepEqual(await modelStates(), {[chatml]: "loaded", [qwen]: "unloaded"});
    assert.deepEqual(await generationsByModel(), {...before, [qwen]: (before[qwen] ?? 0) + 1, [chatml]: (before[chatml] ?? 0) + 1});
    await workbench.screenshot("library-both-answered");
});

/** An HTTP stream kept reading in the background: how many events came and how it ended. */
function streamInBackground(body: unknown): {
    events: () => number, ended: Promise<{completed: boolean, failed: string | null, error: string | null}>
} {
    let events = 0;
    const ended = (async () => {
        try {
            const response = await fetch(`${connection.endpoint}/responses`, {
                method: "POST", headers: {authorization: `Bearer ${connection.apiKey}`, "content-type": "application/json"},
                body: JSON.stringify(body)
            });
            const reader = response.body!.getReader();
            const decoder = new TextDecoder();
            let text = "";
            for (let read = await reader.read(); !read.done; read = await reader.read()) {
                text += decoder.decode(read.value, {stream: true});
                events = text.split("\n").filter((line) => line.startsWith("data:")).length;
            }
            return {completed: /response\.completed/.test(text), failed: /event: response\.failed\ndata: (.*)/.exec(text)?.[1] ?? null, error: null};
        } catch (error) {
            return {completed: false, failed: null, error: String((error as {cause?: unknown}).cause ?? error)};
        }
    })();
    return {events: () => events, ended};
}

type StatusModel = {id: string, sequences_busy?: number, process_id?: number, status: string, failure?: string};

/** The default model (stories260K) as `/v1/status` lists it. */
async function modelStatus(): Promise<StatusModel> {
    return (await api<{models: {data: StatusModel[]}}>("GET", "/status")).models.data.find((model) => model.id === chatml)!;
}

/** An HTTP stream and another extension's vscode.lm request on the default model, both generating (forced calls of many words). */
type InFlight = {stream: ReturnType<typeof streamInBackground>, lmRequest: StartedProbeCommand<AskAnswer>};

async function twoRequestsGenerating(): Promise<InFlight> {
    const stream = streamInBackground({
        model: chatml, input: "Write many words.", stream: true, max_output_tokens: 1500, tool_choice: "required",
        tools: [{type: "function", name: words.name, description: words.description, parameters: words.schema}]
    });
    await until("the stream's first events", () => stream.events() > 3, 60_000);
    const lmRequest = await lmProbe.start<AskAnswer>("ask", "LM Probe: Ask",
        {model: chatml, prompt: "Write many words.", maxTokens: 1500, tools: [{...words, inputSchema: words.schema}]});
    await until("both requests generating", async () => (await modelStatus()).sequences_busy === 2, 60_000);
    return {stream, lmRequest};
}

test("a native abort inside one model, in its own process: that model's requests fail with the reason, the extension host "
    + "and the other model serve on, and the model loads again on its next request", async () => {
    const hostBefore = await lmProbe.run<ModelsAnswer>("models", "LM Probe: Models");
    // In flight when the model's process dies: an HTTP stream and another extension's vscode.lm request, both generating.
    const {stream, lmRequest} = await twoRequestsGenerating();
    const {process_id: modelPid} = await modelStatus();
    assert.ok(modelPid != null && modelPid !== hostBefore.pid, "the model runs in a process of its own");
    const killedAt = Date.now();
    process.kill(modelPid, "SIGABRT");
    const ended = await stream.ended;
    const streamEndedAfterMs = Date.now() - killedAt;
    assert.equal(ended.error, null, "the stream ended in order, not cut");
    assert.equal(ended.completed, false);
    assert.match(ended.failed ?? "", /SIGABRT/);
    const lm = await lmRequest.outcome(30_000);
    assert.ok(lm != null && !lm.ok, `the vscode.lm request failed: ${JSON.stringify(lm)}`);
    assert.match(lm.error, /stopped|SIGABRT/);
    assert.equal((await modelStatus()).status, "failed");

    const hostAfter = await lmProbe.run<ModelsAnswer>("models", "LM Probe: Models");
    assert.equal(hostAfter.pid, hostBefore.pid, "the same extension host");
    assert.equal((await ask(qwen)).model, qwen);
    const reloadedAt = Date.now();
    assert.equal((await ask(chatml)).model, chatml);
    const reloadMs = Date.now() - reloadedAt;
    await workbench.screenshot("after-model-crash");
    fs.mkdirSync(artifacts, {recursive: true});
    fs.writeFileSync(path.join(artifacts, "model-crash.json"), JSON.stringify({streamEndedAfterMs, reloadMs}, null, 2));
    console.log(`model crash: the stream ended ${streamEndedAfterMs} ms after the kill; the model answered again in ${reloadMs} ms`);
});

test("a native abort of the extension host: VS Code starts another, the server is back on its port with its key and stored "
    + "responses; what was in flight is lost", async () => {
    const stored = await api<{id: string}>("POST", "/responses",
        {model: qwen, input: "Once upon a time", max_output_tokens: 8, store: true});
    // In flight when the host dies: an HTTP stream and another extension's vscode.lm request, both generating.
    const {stream, lmRequest} = await twoRequestsGenerating();

    const {pid} = await lmProbe.run<{pid: number}>("abort", "LM Probe: Abort Extension Host");
    await until("the extension host gone", () => {
        try {
            process.kill(pid, 0);
            return false;
        } catch {
            return true;
        }
    }, 10_000);
    const diedAt = Date.now();
    // Nobody presses anything: VS Code restarts the extension host, which activates the extension, which serves again.
    await until("the server answering again", async () => await probeEndpoint(connection.endpoint, connection.apiKey) === 200, 90_000);
    const backAfterMs = Date.now() - diedAt;
    await workbench.screenshot("after-crash");

    const cut = await stream.ended;
    assert.equal(cut.completed, false);
    assert.notEqual(cut.error, null, "the stream broke off rather than ending");
    assert.equal(await lmRequest.answer(1000), null, "the other extension's request never answered: it died in the same process");

    const again = await copiedConnection(workbench);
    assert.deepEqual(again, connection, "the same endpoint and key");
    const kept = await api<{id: string, model: string}>("GET", `/responses/${stored.id}`);
    assert.equal(kept.id, stored.id);
    assert.equal(kept.model, qwen);
    assert.deepEqual(await modelStates(), {[chatml]: "loaded", [qwen]: "unloaded"}, "the default model loaded again, nothing else");

    const probeAfter = await lmProbe.run<ModelsAnswer>("models", "LM Probe: Models");
    const newHostAfterMs = Date.now() - probeAfter.uptimeMs - diedAt;
    assert.notEqual(probeAfter.pid, pid);
    assert.deepEqual(probeAfter.models.map((model) => model.id), [chatml, qwen]);
    assert.equal((await ask(qwen)).model, qwen);
    const timings = {newHostAfterMs, backAfterMs, streamEventsBeforeCut: stream.events(), streamError: cut.error};
    fs.writeFileSync(path.join(artifacts, "crash.json"), JSON.stringify(timings, null, 2));
    console.log(`crash: a new extension host ${newHostAfterMs} ms after the old one died, the server answering after ${backAfterMs} ms`);
});
