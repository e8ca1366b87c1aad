import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, describe, test} from "node:test";
import {serveCli, type CliServer} from "../../helpers/cliServer.js";
import {models} from "../../helpers/paths.js";

/**
 * The fourth audit's library findings, through `dist/cli.js serve` in a process of its own (a regression hangs that
 * process, not the test): two copies of stories260K in a `--models-dir`, a user's key, another user's key and the
 * operator's (`--admin-api-key`).
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-robust-"));
const servers: CliServer[] = [];
after(() => {
    for (const server of servers)
        server.child.kill("SIGKILL");
    fs.rmSync(root, {recursive: true, force: true});
});

const userKey = "sk-user-a";
const otherKey = "sk-user-b";
const adminKey = "sk-operator";

async function startServer(name: string, extra: string[] = []): Promise<CliServer> {
    const folder = path.join(root, name);
    fs.mkdirSync(path.join(folder, "models"), {recursive: true});
    for (const id of ["a", "b"])
        fs.symlinkSync(models.chatml, path.join(folder, "models", `${id}.gguf`));
    const server = await serveCli(["--models-dir", path.join(folder, "models"), "--data-dir", path.join(folder, "data"),
        "--api-key", userKey, "--api-key", otherKey, "--admin-api-key", adminKey, "--threads", "1", "--context-size", "2048",
        ...extra]);
    servers.push(server);
    return server;
}

function call(server: CliServer, key: string, route: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    return fetch(`${server.url}${route}`, {
        method: body === undefined ? "GET" : "POST", signal,
        headers: {"authorization": `Bearer ${key}`, "content-type": "application/json"},
        body: body === undefined ? undefined : JSON.stringify(body)
    });
}

/** A generation that runs for seconds on stories260K: a schema that asks for 200 fixed-length strings. */
function longGeneration(model: string) {
    const items = {type: "array", items: {type: "string", minLength: 8, maxLength: 8}, minItems: 200, maxItems: 200};
    return {
        model, input: "Once upon a time", max_output_tokens: 1900,
        text: {format: {type: "json_schema", name: "long", strict: true,
            schema: {type: "object", properties: {items}, required: ["items"], additionalProperties: false}}}
    };
}

type ModelObject = {id: string, status: string, in_flight: number, last_used_at: number | null, failure?: string,
    process_id?: number};

async function listed(server: CliServer, key: string): Promise<Map<string, ModelObject>> {
    const response = await call(server, key, "/models");
    assert.equal(response.status, 200);
    return new Map(((await response.json()) as {data: ModelObject[]}).data.map((model) => [model.id, model]));
}

async function waitFor(what: string, condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
        if (Date.now() > deadline)
            throw new Error(`timed out waiting until ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
    }
}

function residentBytes(pid: number): number {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
}

/** Times each of `count` `GET /v1/models` of `key`, one after another. */
async function listTimes(server: CliServer, key: string, count: number): Promise<number[]> {
    const times: number[] = [];
    for (let index = 0; index < count; index++) {
        const started = performance.now();
        await listed(server, key);
        times.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return times;
}

describe("unloading a model while it generates (audit 4, high)", () => {
    let server: CliServer;

    test("the server answers everyone while the unload waits; the generation is not cut; then the model unloads", async () => {
        server = await startServer("unload");
        const generation = call(server, userKey, "/responses", longGeneration("a"));
        await waitFor("a generates", async () => (await listed(server, userKey)).get("a")?.in_flight === 1);
        const unload = call(server, adminKey, "/models/a/unload", {});
        // Before the fix the unload spun the event loop: the lists never answered again and memory grew by GBs.
        const times = await listTimes(server, otherKey, 5);
        assert.ok(Math.max(...times) < 500, `GET /v1/models took ${times.map(Math.round).join(", ")} ms`);
        const other = await call(server, otherKey, "/chat/completions",
            {model: "b", messages: [{role: "user", content: "Once"}], max_tokens: 4});
        assert.equal(other.status, 200);
        const answered = await (await generation).json() as {status: string, output_text?: string, output: unknown[]};
        assert.equal(answered.status, "completed", "the unload waited for the generation");
        const unloaded = await (await unload).json() as {status: string, unloaded: boolean};
        assert.deepEqual([unloaded.status, unloaded.unloaded], ["unloaded", true]);
        assert.ok(residentBytes(server.child.pid!) < 600 * 2 ** 20, `${residentBytes(server.child.pid!)} bytes resident`);
    });

    test("an unload whose client goes away stops waiting: the model stays loaded", async () => {
        const generation = call(server, userKey, "/responses", longGeneration("a"));
        await waitFor("a generates", async () => (await listed(server, userKey)).get("a")?.in_flight === 1);
        const gone = new AbortController();
        const unload = call(server, adminKey, "/models/a/unload", {}, gone.signal).catch((error: unknown) => error);
        await new Promise((resolve) => setTimeout(resolve, 200));
        gone.abort();
        assert.ok((await unload) instanceof Error);
        assert.equal(((await (await generation).json()) as {status: string}).status, "completed");
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal((await listed(server, adminKey)).get("a")?.status, "loaded");
    });

    test("only the operator's key unloads or pins; a user's key gets 403 in its protocol's shape", async () => {
        const refused = await call(server, userKey, "/models/a/unload", {});
        assert.equal(refused.status, 403);
        const error = ((await refused.json()) as {error: {type: string, code: string, message: string}}).error;
        assert.deepEqual([error.type, error.code], ["permission_error", "admin_key_required"]);
        assert.match(error.message, /--admin-api-key/);
        const pinned = await call(server, userKey, "/messages",
            {model: "a", max_tokens: 4, keep_alive: -1, messages: [{role: "user", content: "Once"}]});
        assert.equal(pinned.status, 403);
        assert.equal(((await pinned.json()) as {type: string, error: {type: string}}).error.type, "permission_error");
        const pinLoad = await call(server, userKey, "/models/b/load", {keep_alive: "-1"});
        assert.equal(pinLoad.status, 403);
        // The operator pins, and loading stays open to every key.
        assert.equal((await call(server, adminKey, "/models/b/load", {keep_alive: -1})).status, 200);
        assert.equal((await call(server, otherKey, "/models/a/load", {keep_alive: "5m"})).status, 200);
    });

    test("each key is shown its own last use of a model, the operator everyone's (audit 4, low)", async () => {
        assert.equal((await call(server, userKey, "/chat/completions",
            {model: "b", messages: [{role: "user", content: "Once"}], max_tokens: 2})).status, 200);
        const user = (await listed(server, userKey)).get("b")!;
        const other = (await listed(server, otherKey)).get("b")!;
        const admin = (await listed(server, adminKey)).get("b")!;
        assert.ok(user.last_used_at != null);
        assert.equal(admin.last_used_at, user.last_used_at);
        // b was used by otherKey earlier in this file too: what it sees is its own use, before userKey's.
        assert.ok(other.last_used_at == null || other.last_used_at <= user.last_used_at);
        const status = await (await call(server, otherKey, "/status")).json() as {models: {data: ModelObject[]}};
        const seen = status.models.data.find((model) => model.id === "b")!;
        assert.equal(seen.last_used_at, other.last_used_at);
        assert.equal(seen.status, "loaded", "occupancy is everyone's to see");
    });
});

describe("a model process that stops answering (audit 4, medium)", () => {
    test("a cancelled request settles at once, the silent process is killed, another model loads, the model loads again",
        async () => {
            const server = await startServer("silent", ["--max-loaded-models", "1"]);
            assert.equal((await call(server, userKey, "/chat/completions",
                {model: "a", messages: [{role: "user", content: "Once"}], max_tokens: 2})).status, 200);
            const status = await (await call(server, adminKey, "/status")).json() as {models: {data: ModelObject[]}};
            const pid = status.models.data.find((model) => model.id === "a")!.process_id!;
            const gaveUp = new AbortController();
            const stuck = call(server, userKey, "/responses", {...longGeneration("a"), stream: true}, gaveUp.signal);
            const reader = (await stuck).body!.getReader();
            await reader.read();
            // SIGSTOP stands in for a native hang: the process neither answers nor ends.
            process.kill(pid, "SIGSTOP");
            try {
                gaveUp.abort();
                const started = performance.now();
                await waitFor("the cancelled request no longer counts",
                    async () => (await listed(server, adminKey)).get("a")?.in_flight === 0, 5000);
                const settledMs = performance.now() - started;
                // Another key's request for the other model needs a's room (one model at a time).
                const other = await call(server, otherKey, "/chat/completions",
                    {model: "b", messages: [{role: "user", content: "Once"}], max_tokens: 2});
                const servedMs = performance.now() - started;
                assert.equal(other.status, 200);
                assert.ok(settledMs < 4000, `in_flight back to 0 after ${Math.round(settledMs)} ms`);
                assert.ok(servedMs < 15_000, `the other model answered after ${Math.round(servedMs)} ms`);
                assert.throws(() => process.kill(pid, 0), "the stopped process was ended");
            } finally {
                try {
                    process.kill(pid, "SIGCONT");
                } catch {
                    // Ended, as it should be.
                }
            }
            const again = await call(server, userKey, "/chat/completions",
                {model: "a", messages: [{role: "user", content: "Once"}], max_tokens: 2});
            assert.equal(again.status, 200);
        });

    test("a request in flight on a process that falls silent fails with model_crashed within the watchdog's limit", async () => {
        const server = await startServer("hung");
        assert.equal((await call(server, userKey, "/chat/completions",
            {model: "a", messages: [{role: "user", content: "Once"}], max_tokens: 2})).status, 200);
        const status = await (await call(server, adminKey, "/status")).json() as {models: {data: ModelObject[]}};
        const pid = status.models.data.find((model) => model.id === "a")!.process_id!;
        const stream = await call(server, userKey, "/responses", {...longGeneration("a"), stream: true});
        const reader = stream.body!.getReader();
        await reader.read();
        process.kill(pid, "SIGSTOP");
        const started = performance.now();
        let text = "";
        const decoder = new TextDecoder();
        for (;;) {
            const {done, value} = await reader.read();
            if (done)
                break;
            text += decoder.decode(value, {stream: true});
        }
        const endedMs = performance.now() - started;
        assert.match(text, /event: response\.failed/);
        assert.match(text, /answered nothing/);
        assert.ok(endedMs < 15_000, `the stream ended after ${Math.round(endedMs)} ms`);
        const model = (await listed(server, adminKey)).get("a")!;
        assert.deepEqual([model.status, model.in_flight], ["failed", 0]);
        assert.match(model.failure ?? "", /answered nothing for \d+ s/);
        assert.equal((await call(server, userKey, "/chat/completions",
            {model: "a", messages: [{role: "user", content: "Once"}], max_tokens: 2})).status, 200);
    });
});
