import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, test} from "node:test";
import {defaultConfig} from "../../../src/host/config.js";
import {LocalResponsesHost} from "../../../src/host/LocalResponsesHost.js";
import {hugeArrayGguf, hugeEntryCountGguf} from "../../helpers/craftedGguf.js";
import {models} from "../../helpers/paths.js";

/**
 * A crafted GGUF header dropped into the models folder (the audit's 99-byte files: an array that claims 2^40 items, a
 * header that claims 2^62 entries) is read where it cannot hurt the server: `/v1/models` keeps answering fast, the
 * server's memory stays where it was, the entry is `failed` with one line saying why, a request naming it gets a 500 in
 * the protocol's shape, and the good model keeps serving. Before, the header read held the server at 100% CPU, growing
 * by gigabytes, `/v1/models` taking up to 1.8 s, and the entry never left `unloaded`.
 */
const folder = fs.mkdtempSync(path.join(os.tmpdir(), "lr-crafted-"));
let host: LocalResponsesHost;
let url: string;
const log: string[] = [];
const headers = {"authorization": "Bearer sk-crafted", "content-type": "application/json"};

before(async () => {
    fs.symlinkSync(models.chatml, path.join(folder, "good.gguf"));
    const base = defaultConfig();
    host = new LocalResponsesHost({
        ...base, port: 0, threads: 1, contextSize: 2048, apiKeys: ["sk-crafted"], library: {...base.library, modelsDir: folder}
    }, {log: (line) => log.push(line)});
    url = await host.start();
});
after(async () => {
    await host.dispose();
    fs.rmSync(folder, {recursive: true, force: true});
});

type ListedModel = {id: string, status: string, failure?: string};

/** GET /v1/models, and how long it took. */
async function listModels(): Promise<{models: ListedModel[], ms: number}> {
    const started = performance.now();
    const response = await fetch(`${url}/models`, {headers});
    const body = await response.json() as {data: ListedModel[]};
    return {models: body.data, ms: performance.now() - started};
}

test("crafted headers leave their entries failed with one line; /v1/models answers fast and memory stays put meanwhile", async (t) => {
    await listModels();
    const rssBefore = process.memoryUsage().rss;
    fs.writeFileSync(path.join(folder, "huge-array.gguf"), hugeArrayGguf());
    fs.writeFileSync(path.join(folder, "huge-entries.gguf"), hugeEntryCountGguf());
    const polls: number[] = [];
    let listed: ListedModel[] = [];
    // Generous for a loaded machine: from source each read's worker starts under tsx, and a failed read's is replaced.
    const deadline = Date.now() + 30_000;
    // Polls for 3 s at least (the watcher settles for 0.5 s, then both headers are read), until both show failed.
    const pollUntil = Date.now() + 3000;
    while (Date.now() < deadline) {
        const {models: seen, ms} = await listModels();
        polls.push(ms);
        listed = seen;
        const crafted = seen.filter((model) => model.id.startsWith("huge-"));
        if (Date.now() > pollUntil && crafted.length === 2 && crafted.every((model) => model.status === "failed"))
            break;
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
    t.diagnostic(`${polls.length} polls, slowest ${Math.max(...polls).toFixed(1)} ms; RSS grew ${rssGrowthMb.toFixed(0)} MB`);
    assert.deepEqual(listed.map((model) => [model.id, model.status, model.failure]), [
        ["good", "unloaded", undefined],
        ["huge-array", "failed", "not a GGUF file we can read: metadata array of 2^40 items is larger than the file"],
        ["huge-entries", "failed", "not a GGUF file we can read: metadata of 2^62 entries is larger than the file"]
    ]);
    assert.ok(polls.length >= 20, `${polls.length} polls`);
    // Before: up to 1.8 s a poll, with no request at all.
    assert.ok(Math.max(...polls) < 500, `GET /v1/models took up to ${Math.max(...polls).toFixed(0)} ms`);
    assert.ok(rssGrowthMb < 150, `the server's memory grew by ${rssGrowthMb.toFixed(0)} MB`);
    assert.ok(log.includes("models: huge-array cannot be loaded: "
        + "not a GGUF file we can read: metadata array of 2^40 items is larger than the file"));
});

test("a request naming a crafted model gets a 500 in the protocol's shape at once; the good model still answers", async () => {
    const started = performance.now();
    const chat = await fetch(`${url}/chat/completions`, {
        method: "POST", headers, body: JSON.stringify({model: "huge-array", messages: [{role: "user", content: "Once"}], max_tokens: 4})
    });
    assert.equal(chat.status, 500);
    const {error} = await chat.json() as {error: {message: string, code: string}};
    assert.equal(error.message,
        "The model 'huge-array' cannot be loaded: not a GGUF file we can read: metadata array of 2^40 items is larger than the file");
    assert.equal(error.code, "server_error");
    assert.ok(performance.now() - started < 5000);
    const messages = await fetch(`${url}/messages`, {
        method: "POST", headers: {...headers, "anthropic-version": "2023-06-01"},
        body: JSON.stringify({model: "huge-entries", messages: [{role: "user", content: "Once"}], max_tokens: 4})
    });
    assert.equal(messages.status, 500);
    assert.equal((await messages.json() as {type: string}).type, "error");
    const good = await fetch(`${url}/responses`, {
        method: "POST", headers, body: JSON.stringify({model: "good", input: "Once upon a time", max_output_tokens: 4})
    });
    assert.equal(good.status, 200);
    assert.equal((await good.json() as {model: string}).model, "good");
});
