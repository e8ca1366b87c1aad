import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, describe, test} from "node:test";
import OpenAI from "openai";
import {defaultConfig, type HostConfig, type LibrarySettings} from "../../../src/host/config.js";
import {LocalResponsesHost} from "../../../src/host/LocalResponsesHost.js";
import {serveCli} from "../../helpers/cliServer.js";
import {models, repoRoot} from "../../helpers/paths.js";
import {runCli} from "../../helpers/runCli.js";

/**
 * The model library on the real engine: the three shared stories260K models (ChatML, Qwen's template, the thinking
 * twin) in one `--models-dir`, loaded when a request names one, within `--max-loaded-models` and `--memory-budget`.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-library-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

function modelsFolder(name: string): string {
    const folder = path.join(root, name);
    fs.mkdirSync(folder);
    for (const file of Object.values(models))
        fs.symlinkSync(file, path.join(folder, path.basename(file)));
    return folder;
}

type Library = {
    host: LocalResponsesHost, url: string, client: OpenAI, log: string[],
    post(route: string, body?: unknown): Promise<Response>
};

async function startLibrary(library: Partial<LibrarySettings>, settings: Partial<HostConfig> = {}): Promise<Library> {
    const base = defaultConfig();
    const log: string[] = [];
    const host = new LocalResponsesHost({
        ...base, port: 0, threads: 1, contextSize: 2048, apiKeys: ["sk-library"], ...settings,
        library: {...base.library, ...library}
    }, {log: (line) => log.push(line)});
    const url = await host.start();
    const post = (route: string, body?: unknown) => fetch(`${url}${route}`, {
        method: "POST", headers: {"authorization": "Bearer sk-library", "content-type": "application/json"},
        body: body === undefined ? undefined : JSON.stringify(body)
    });
    return {host, url, client: new OpenAI({baseURL: url, apiKey: "sk-library", maxRetries: 0}), log, post};
}

type LibraryModelObject = {id: string, status: string, keep_alive_seconds: number | null, expires_at: number | null};

async function modelObject(library: Library, id: string): Promise<LibraryModelObject> {
    const response = await fetch(`${library.url}/models/${id}`, {headers: {authorization: "Bearer sk-library"}});
    assert.equal(response.status, 200);
    return await response.json() as LibraryModelObject;
}

async function statuses(library: Library): Promise<Record<string, string>> {
    const list = await library.client.models.list();
    return Object.fromEntries(list.data.map((model) => [model.id, (model as unknown as {status: string}).status]));
}

describe("three models in one folder, at most two loaded", () => {
    let library: Library;
    test("GET /v1/models lists every model, unloaded, with its size (the OpenAI SDK's models.list())", async () => {
        library = await startLibrary({modelsDir: modelsFolder("three"), maxLoaded: 2});
        const list = await library.client.models.list();
        assert.deepEqual(list.data.map((model) => model.id), ["stories260K", "stories260K-qwen", "stories260K-think"]);
        for (const model of list.data as unknown as {status: string, size_bytes: number}[]) {
            assert.equal(model.status, "unloaded");
            assert.ok(model.size_bytes > 1_000_000);
        }
    });

    test("requests alternate between the models through all three protocols; each answers with its own model", async () => {
        const responses = await library.client.responses.create({model: "stories260K", input: "Once upon a time", max_output_tokens: 8});
        assert.equal(responses.model, "stories260K");
        const chat = await library.client.chat.completions.create({
            model: "stories260K-qwen", messages: [{role: "user", content: "Once upon a time"}], max_tokens: 8
        });
        assert.equal(chat.model, "stories260K-qwen");
        const messages = await library.post("/messages", {
            model: "stories260K-think", max_tokens: 2048, thinking: {type: "enabled", budget_tokens: 1024},
            messages: [{role: "user", content: "Once upon a time"}]
        });
        assert.equal(messages.status, 200);
        const message = await messages.json() as {model: string, content: {type: string}[]};
        assert.equal(message.model, "stories260K-think");
        // The thinking twin's own chat format: its answer opens with a thought.
        assert.equal(message.content[0]?.type, "thinking");
        const again = await library.client.responses.create({model: "stories260K-think", input: "Hello", max_output_tokens: 16});
        assert.equal(again.output[0]?.type, "reasoning");
    });

    test("a third model past --max-loaded-models 2 unloaded the least recently used idle one", async () => {
        assert.deepEqual(await statuses(library), {"stories260K": "unloaded", "stories260K-qwen": "loaded", "stories260K-think": "loaded"});
        assert.ok(library.log.some((line) => line.includes("unloading stories260K (least recently used) to load stories260K-think")));
    });

    test("/v1/status and /metrics show each model: state, memory, use; generations and tokens by model", async () => {
        const headers = {authorization: "Bearer sk-library"};
        const status = await (await fetch(`${library.url}/status`, {headers})).json() as {models: {
            max_loaded: number, loaded: number, data: {id: string, status: string, memory_estimate_bytes: number | null,
                last_used_at: number | null, sequences_total?: number}[]
        }};
        assert.equal(status.models.max_loaded, 2);
        assert.equal(status.models.loaded, 2);
        const qwen = status.models.data.find((model) => model.id === "stories260K-qwen")!;
        assert.equal(qwen.status, "loaded");
        assert.ok(qwen.memory_estimate_bytes! > 0 && qwen.last_used_at! > 0 && qwen.sequences_total! >= 1);
        const metrics = await (await fetch(`${library.url.replace(/\/v1$/, "")}/metrics`, {headers})).text();
        assert.match(metrics, /^local_responses_model_loaded\{model="stories260K-qwen"\} 1$/m);
        assert.match(metrics, /^local_responses_model_loaded\{model="stories260K"\} 0$/m);
        // Two generations on the thinking twin; each ends completed or incomplete as its sampling falls (CI saw both
        // end alike), so their sum is what is fixed.
        const thinkGenerations = [...metrics.matchAll(/^local_responses_model_generations_total\{model="stories260K-think",status="\w+"\} (\d+)$/gm)]
            .reduce((sum, match) => sum + Number(match[1]), 0);
        assert.equal(thinkGenerations, 2);
        assert.match(metrics, /^local_responses_model_tokens_total\{model="stories260K-qwen",kind="output"\} [1-9]/m);
    });

    test("never the one with a request in flight, even when it is the least recently used", async () => {
        // A lease on stories260K-qwen (used before -think) holds one of its sequences, as a request in flight does.
        const lease = await library.host.engine.acquire([{role: "user", text: "Hi"}], [], undefined, {model: "stories260K-qwen"});
        try {
            const answer = await library.client.responses.create({model: "stories260K", input: "Once", max_output_tokens: 4});
            assert.equal(answer.model, "stories260K");
            assert.deepEqual(await statuses(library),
                {"stories260K": "loaded", "stories260K-qwen": "loaded", "stories260K-think": "unloaded"});
        } finally {
            lease.release();
        }
    });

    test("a name the library does not have: 404 listing the names it serves", async () => {
        const response = await library.post("/responses", {model: "gpt-5", input: "Hi"});
        assert.equal(response.status, 404);
        const {error} = await response.json() as {error: {code: string, message: string}};
        assert.equal(error.code, "model_not_found");
        assert.match(error.message, /'stories260K', 'stories260K-qwen', 'stories260K-think'/);
    });

    test("requests that arrive during a load wait for it (one load) and succeed", async () => {
        assert.equal((await statuses(library))["stories260K-think"], "unloaded");
        const loadsBefore = library.log.filter((line) => line.includes("loaded stories260K-think")).length;
        const answers = await Promise.all([0, 1, 2].map((index) => library.client.responses.create({
            model: "stories260K-think", input: `Story ${index}`, max_output_tokens: 4
        })));
        assert.deepEqual(answers.map((answer) => answer.model), ["stories260K-think", "stories260K-think", "stories260K-think"]);
        assert.equal(library.log.filter((line) => line.includes("loaded stories260K-think")).length, loadsBefore + 1);
    });

    test("load and unload endpoints; Codex's models list with client_version", async () => {
        const unload = await library.post("/models/stories260K-think/unload");
        assert.equal(unload.status, 200);
        assert.equal((await unload.json() as {status: string}).status, "unloaded");
        const load = await library.post("/models/stories260K-think/load");
        assert.equal(load.status, 200);
        const loaded = await load.json() as {status: string, context_window: number, memory_estimate_bytes: number};
        assert.equal(loaded.status, "loaded");
        assert.equal(loaded.context_window, 2048);
        assert.ok(loaded.memory_estimate_bytes > 0);
        assert.equal((await library.post("/models/nope/load")).status, 404);
        const codex = await fetch(`${library.url}/models?client_version=0.169.0`, {headers: {authorization: "Bearer sk-library"}});
        const body = await codex.json() as {models: {slug: string, priority: number, visibility: string}[], data: unknown[]};
        assert.deepEqual(body.models.map((model) => [model.slug, model.priority, model.visibility]),
            [["stories260K", 1, "list"], ["stories260K-qwen", 2, "list"], ["stories260K-think", 3, "list"]]);
        assert.equal(body.data.length, 3);
        await library.host.dispose();
    });
});

describe("a memory budget, presets and idle unloading", () => {
    test("a model over the whole budget gets 503 model_memory_exceeded; the others keep serving", async () => {
        const folder = modelsFolder("budget");
        const presets = path.join(root, "presets.toml");
        // Context 65536 puts stories260K-qwen at ~112 MB by node-llama-cpp's estimate; 2048 keeps the others at ~6 MB.
        fs.writeFileSync(presets, "[models.stories260K-qwen]\ncontext_size = 65536\naliases = [\"big\"]\n");
        const library = await startLibrary({modelsDir: folder, presetsFile: presets, memoryBudgetBytes: 64 * 2 ** 20});
        try {
            const refused = await library.post("/responses", {model: "big", input: "Hi", max_output_tokens: 4});
            assert.equal(refused.status, 503);
            const {error} = await refused.json() as {error: {code: string, message: string}};
            assert.equal(error.code, "model_memory_exceeded");
            assert.match(error.message, /stories260K-qwen.*needs about 0\.1\d GiB.*budget is 0\.06 GiB/);
            const served = await library.client.responses.create({model: "stories260K", input: "Once", max_output_tokens: 4});
            assert.equal(served.status === "completed" || served.status === "incomplete", true);
            assert.equal((await statuses(library))["stories260K-qwen"], "unloaded");
        } finally {
            await library.host.dispose();
        }
    });

    test("--idle-unload-secs unloads a model its requests left idle", async () => {
        const library = await startLibrary({modelsDir: modelsFolder("idle"), idleUnloadSeconds: 1});
        try {
            await library.client.responses.create({model: "stories260K", input: "Once", max_output_tokens: 4});
            assert.equal((await statuses(library)).stories260K, "loaded");
            const deadline = Date.now() + 10_000;
            while ((await statuses(library)).stories260K !== "unloaded" && Date.now() < deadline)
                await new Promise((resolve) => setTimeout(resolve, 200));
            assert.equal((await statuses(library)).stories260K, "unloaded");
            assert.ok(library.log.some((line) => /unloading stories260K \(idle for \d+ s\)/.test(line)));
        } finally {
            await library.host.dispose();
        }
    });

    test("a new file in the models folder is listed without a restart", async () => {
        const folder = path.join(root, "growing");
        fs.mkdirSync(folder);
        fs.symlinkSync(models.chatml, path.join(folder, "first.gguf"));
        const library = await startLibrary({modelsDir: folder});
        try {
            assert.deepEqual(Object.keys(await statuses(library)), ["first"]);
            fs.symlinkSync(models.qwen, path.join(folder, "second.gguf"));
            const deadline = Date.now() + 10_000;
            while (Object.keys(await statuses(library)).length < 2 && Date.now() < deadline)
                await new Promise((resolve) => setTimeout(resolve, 200));
            assert.deepEqual(Object.keys(await statuses(library)), ["first", "second"]);
            const answer = await library.client.responses.create({model: "second", input: "Once", max_output_tokens: 4});
            assert.equal(answer.model, "second");
        } finally {
            await library.host.dispose();
        }
    });
});

describe("keep_alive on a request (Ollama's), without and with --idle-unload-secs", () => {
    /** Polls the models list until `id` has `status`, for up to `withinMs`; returns the status it saw last. */
    async function statusWithin(library: Library, id: string, status: string, withinMs: number): Promise<string | undefined> {
        const deadline = Date.now() + withinMs;
        let seen = (await statuses(library))[id];
        while (seen !== status && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            seen = (await statuses(library))[id];
        }
        return seen;
    }

    test("keep_alive 0 unloads the model as its request ends; \"2s\" two seconds later, with no idle unload set", async () => {
        const library = await startLibrary({modelsDir: modelsFolder("keep-alive")});
        try {
            const zero = await library.post("/responses", {model: "stories260K", input: "Once", max_output_tokens: 4, keep_alive: 0});
            assert.equal(zero.status, 200);
            assert.equal((await statuses(library)).stories260K, "unloaded");
            const chat = await library.post("/chat/completions", {
                model: "stories260K-qwen", messages: [{role: "user", content: "Once"}], max_tokens: 4, keep_alive: "2s"
            });
            assert.equal(chat.status, 200);
            const ended = Date.now();
            const shown = await modelObject(library, "stories260K-qwen");
            assert.equal(shown.status, "loaded");
            // The list says how long it stays and when it goes (Ollama's /api/ps has the same `expires_at`).
            assert.equal(shown.keep_alive_seconds, 2);
            assert.ok(Math.abs(shown.expires_at! - (ended + 2000) / 1000) <= 1.5, `expires_at ${shown.expires_at} vs ${ended}`);
            assert.equal(await statusWithin(library, "stories260K-qwen", "unloaded", 8000), "unloaded");
            assert.ok(Date.now() - ended >= 1500, "unloaded before its keep_alive ran out");
            assert.ok(library.log.some((line) => /unloading stories260K-qwen \(idle for 2 s, as its keep_alive asked\)/.test(line)));
        } finally {
            await library.host.dispose();
        }
    });

    test("keep_alive -1 keeps it past --idle-unload-secs until a request without one; a bad value is a 400 on each protocol", async () => {
        const library = await startLibrary({modelsDir: modelsFolder("keep-forever"), idleUnloadSeconds: 1});
        try {
            const kept = await library.post("/messages", {
                model: "stories260K", max_tokens: 4, messages: [{role: "user", content: "Once"}], keep_alive: "-1m"
            });
            assert.equal(kept.status, 200);
            assert.equal((await modelObject(library, "stories260K-qwen")).keep_alive_seconds, 1, "the operator's, before any request");
            const forever = await modelObject(library, "stories260K");
            assert.deepEqual([forever.keep_alive_seconds, forever.expires_at], [null, null]);
            await new Promise((resolve) => setTimeout(resolve, 2500));
            assert.equal((await statuses(library)).stories260K, "loaded");
            // The latest request's keep_alive applies: one that names none gives the model back to --idle-unload-secs.
            await library.client.responses.create({model: "stories260K", input: "Once", max_output_tokens: 4});
            assert.equal(await statusWithin(library, "stories260K", "unloaded", 8000), "unloaded");

            const bad = {model: "stories260K-qwen", keep_alive: "soon"};
            const hi = [{role: "user", content: "Hi"}];
            const responses = await library.post("/responses", {...bad, input: "Hi", max_output_tokens: 4});
            const chat = await library.post("/chat/completions", {...bad, messages: hi, max_tokens: 4});
            const messages = await library.post("/messages", {...bad, messages: hi, max_tokens: 4});
            for (const refused of [responses, chat, messages])
                assert.equal(refused.status, 400);
            for (const refused of [responses, chat]) {
                const {error} = await refused.json() as {error: {param: string, code: string}};
                assert.deepEqual([error.param, error.code], ["keep_alive", "invalid_value"]);
            }
            const anthropic = await messages.json() as {type: string, error: {type: string, message: string}};
            assert.equal(anthropic.type, "error");
            assert.equal(anthropic.error.type, "invalid_request_error");
            assert.match(anthropic.error.message, /keep_alive/);
            // Refused before any generation: the model was never loaded.
            assert.equal((await statuses(library))["stories260K-qwen"], "unloaded");
        } finally {
            await library.host.dispose();
        }
    });

    test("POST /v1/models/{id}/load takes a keep_alive as a request does; a bad one is a 400 and loads nothing", async () => {
        const library = await startLibrary({modelsDir: modelsFolder("load-keep-alive")});
        try {
            const bad = await library.post("/models/stories260K/load", {keep_alive: "later"});
            assert.equal(bad.status, 400);
            const {error} = await bad.json() as {error: {param: string, code: string}};
            assert.deepEqual([error.param, error.code], ["keep_alive", "invalid_value"]);
            assert.equal((await statuses(library)).stories260K, "unloaded");

            const loaded = await library.post("/models/stories260K/load", {keep_alive: "1s"});
            assert.equal(loaded.status, 200);
            const model = await loaded.json() as LibraryModelObject;
            assert.deepEqual([model.status, model.keep_alive_seconds], ["loaded", 1]);
            assert.ok(model.expires_at != null && model.expires_at * 1000 >= Date.now() - 1000);
            assert.equal(await statusWithin(library, "stories260K", "unloaded", 6000), "unloaded");
            // Without a body it loads and stays, with no idle unload set.
            const plain = await library.post("/models/stories260K/load");
            assert.equal(plain.status, 200);
            assert.deepEqual((await plain.json() as LibraryModelObject).keep_alive_seconds, null);
        } finally {
            await library.host.dispose();
        }
    });
});

describe("the headless CLI with --model twice", () => {
    test("serves both, the first loaded at start as the default; a bad presets file stops it with one line", async () => {
        const server = await serveCli(["--model", models.chatml, "--model", models.qwen, "--no-auth", "--store", "memory",
            "--threads", "1", "--context-size", "1024"]);
        try {
            assert.match(server.stderr(), /models: library of 2 \(stories260K, stories260K-qwen\)/);
            const list = await (await fetch(`${server.url}/models`)).json() as {data: {id: string, status: string}[]};
            assert.deepEqual(list.data.map((model) => [model.id, model.status]),
                [["stories260K", "loaded"], ["stories260K-qwen", "unloaded"]]);
            const answer = await (await fetch(`${server.url}/chat/completions`, {
                method: "POST", headers: {"content-type": "application/json"},
                body: JSON.stringify({model: "stories260K-qwen", messages: [{role: "user", content: "Once"}], max_tokens: 4})
            })).json() as {model: string};
            assert.equal(answer.model, "stories260K-qwen");
        } finally {
            server.child.kill("SIGTERM");
        }
        const presets = path.join(root, "typo.json");
        fs.writeFileSync(presets, JSON.stringify({models: {"stories260K": {context: 4096}}}));
        const refused = await runCli(process.execPath, [path.join(repoRoot, "dist/cli.js"), "serve", "--port", "0", "--no-auth",
            "--store", "memory", "--model", models.chatml, "--models-preset", presets],
        {cwd: root, env: {PATH: process.env.PATH, HOME: root}, timeoutMs: 60_000});
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /models\.stories260K\.context is not a preset setting \(known: path, aliases, context_size/);
    });
});
