import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, describe, test} from "node:test";
import {defaultConfig} from "../../../src/host/config.js";
import {LocalResponsesHost} from "../../../src/host/LocalResponsesHost.js";
import {models} from "../../helpers/paths.js";

/**
 * A model's native crash in a library (`--model-isolation process`, the default): two models loaded, the process of one
 * killed by SIGABRT while it streams (what an abort inside llama.cpp does). Its stream ends with a failure that names the
 * crash, the other model answers meanwhile, the lists show why the first one stopped, its next request loads it again,
 * and the server never stopped serving.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-crash-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

const key = "sk-crash";
const headers = {"authorization": `Bearer ${key}`, "content-type": "application/json"};

type StatusModel = {id: string, status: string, failure?: string, process_id?: number, rss_bytes?: number};

describe("a crash inside one model of a library", () => {
    const folder = path.join(root, "models");
    fs.mkdirSync(folder);
    for (const file of [models.chatml, models.qwen])
        fs.symlinkSync(file, path.join(folder, path.basename(file)));
    const base = defaultConfig();
    const log: string[] = [];
    const host = new LocalResponsesHost({
        ...base, port: 0, threads: 1, contextSize: 1024, apiKeys: [key], library: {...base.library, modelsDir: folder}
    }, {log: (line) => log.push(line)});
    let url = "";
    after(() => host.dispose());

    async function statusModels(): Promise<StatusModel[]> {
        const response = await fetch(`${url}/status`, {headers});
        return ((await response.json()) as {models: {data: StatusModel[]}}).models.data;
    }

    async function answer(model: string): Promise<{status: number, body: {model?: string, error?: {code: string}}}> {
        const response = await fetch(`${url}/chat/completions`, {
            method: "POST", headers,
            body: JSON.stringify({model, messages: [{role: "user", content: "Once upon a time"}], max_tokens: 4})
        });
        return {status: response.status, body: await response.json() as {model?: string}};
    }

    test("each loaded model runs in a process of its own, shown in /v1/status with its memory; a spare waits for the next", async () => {
        url = await host.start();
        assert.equal((await answer("stories260K")).status, 200);
        assert.equal((await answer("stories260K-qwen")).status, 200);
        const loaded = await statusModels();
        const pids = loaded.map((model) => model.process_id);
        assert.equal(new Set(pids).size, 2);
        for (const model of loaded) {
            assert.equal(model.status, "loaded");
            assert.ok(model.process_id != null && model.process_id !== process.pid);
            assert.ok((model.rss_bytes ?? 0) > 10_000_000, `${model.id}: ${String(model.rss_bytes)} bytes resident`);
        }
        // A spare waits for the next load once nothing has generated for a second: the two models' processes and one spare.
        const children = () => fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8").trim().split(/\s+/)
            .map(Number);
        const deadline = Date.now() + 5000;
        while (children().length < 3 && Date.now() < deadline)
            await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(children().length, 3, `children: ${children().join(", ")}`);
        assert.ok(pids.every((pid) => children().includes(pid!)));
    });

    test("the crashed model's stream fails with model_crashed; the other model answers; the next request loads it again", async () => {
        const victim = (await statusModels()).find((model) => model.id === "stories260K")!;
        const stream = await fetch(`${url}/responses`, {
            method: "POST", headers,
            body: JSON.stringify({model: "stories260K", input: "Once upon a time", max_output_tokens: 400, stream: true})
        });
        assert.equal(stream.status, 200);
        const reader = stream.body!.getReader();
        const decoder = new TextDecoder();
        let text = "";
        let killed = false;
        for (;;) {
            const {done, value} = await reader.read();
            if (done)
                break;
            text += decoder.decode(value, {stream: true});
            if (!killed && text.includes("response.output_text.delta")) {
                killed = true;
                process.kill(victim.process_id!, "SIGABRT");
            }
        }
        assert.ok(killed, "the stream had begun");
        assert.match(text, /event: response\.failed/);
        assert.match(text, /SIGABRT/);
        assert.doesNotMatch(text, /event: response\.completed/);

        const other = await answer("stories260K-qwen");
        assert.equal(other.status, 200);
        assert.equal(other.body.model, "stories260K-qwen");
        const listed = await statusModels();
        const crashed = listed.find((model) => model.id === "stories260K")!;
        assert.equal(crashed.status, "failed");
        assert.match(crashed.failure ?? "", /SIGABRT/);
        assert.equal(listed.find((model) => model.id === "stories260K-qwen")!.status, "loaded");
        assert.ok(log.some((line) => /stories260K: the model's process ended \(signal SIGABRT\)/.test(line)), log.join("\n"));

        const again = await answer("stories260K");
        assert.equal(again.status, 200);
        assert.equal(again.body.model, "stories260K");
        const reloaded = (await statusModels()).find((model) => model.id === "stories260K")!;
        assert.equal(reloaded.status, "loaded");
        assert.equal(reloaded.failure, undefined);
        assert.notEqual(reloaded.process_id, victim.process_id);
    });

    test("closing the server ends every model process", async () => {
        const pids = (await statusModels()).map((model) => model.process_id!);
        await host.dispose();
        await new Promise((resolve) => setTimeout(resolve, 200));
        for (const pid of pids)
            assert.throws(() => process.kill(pid, 0), `process ${pid} ended`);
        // The spare started ahead for the next load too: no process of this test's is left.
        assert.equal(fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8").trim(), "");
    });
});

describe("--model-isolation shared: every model in the server's process", () => {
    test("both models answer, and none has a process of its own", async () => {
        const folder = path.join(root, "shared");
        fs.mkdirSync(folder);
        for (const file of [models.chatml, models.qwen])
            fs.symlinkSync(file, path.join(folder, path.basename(file)));
        const base = defaultConfig();
        const host = new LocalResponsesHost({
            ...base, port: 0, threads: 1, contextSize: 1024, apiKeys: [key],
            library: {...base.library, modelsDir: folder, isolation: "shared"}
        });
        try {
            const url = await host.start();
            for (const model of ["stories260K", "stories260K-qwen"]) {
                const response = await fetch(`${url}/chat/completions`, {
                    method: "POST", headers,
                    body: JSON.stringify({model, messages: [{role: "user", content: "Once upon a time"}], max_tokens: 4})
                });
                assert.equal(response.status, 200);
                assert.equal(((await response.json()) as {model: string}).model, model);
            }
            const status = await (await fetch(`${url}/status`, {headers})).json() as {models: {data: StatusModel[]}};
            assert.deepEqual(status.models.data.map((model) => [model.status, model.process_id]),
                [["loaded", undefined], ["loaded", undefined]]);
        } finally {
            await host.dispose();
        }
    });
});
