import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import fc from "fast-check";
import {serveCli, type CliServer} from "../../helpers/cliServer.js";
import {models} from "../../helpers/paths.js";

/**
 * Property-based fuzzing of a model library's routes racing its requests (the fourth audit's findings): batches of
 * concurrent loads, unloads and generations with odd model ids, odd `keep_alive` values and bodies, from a user's key
 * and the operator's, against `dist/cli.js serve` over a folder of two models at most one loaded. Properties: every
 * answer is the documented one (no 5xx but a crash's 503, a user's unload or pin 403, a bad id 404, a bad keep_alive
 * 400), the server keeps answering within a second, every model's `in_flight` returns to 0, and another key's stored
 * response reads back unchanged. Seeded: a failure replays.
 */
const seed = 20261207;
const batches = 16;

const userKey = "sk-fuzz-user";
const adminKey = "sk-fuzz-operator";
const otherKey = "sk-fuzz-bystander";

type Call = {key: "user" | "admin", method: "POST" | "GET", path: string, body?: unknown, abortAfterMs?: number};

const modelId = fc.oneof(
    {arbitrary: fc.constantFrom("a", "b"), weight: 6},
    {arbitrary: fc.constantFrom("c", "%zz", "..%2Fa", "__proto__", "a%00", "x".repeat(300), "%2e%2e", "A"), weight: 1}
);
const keepAlive = fc.oneof(
    {arbitrary: fc.constant(undefined), weight: 3},
    {arbitrary: fc.constantFrom(-1, 0, 2, "-1m", "0s", "3s", "1h", "300", null), weight: 3},
    {arbitrary: fc.constantFrom("soon", "", "5x", true, {}, [], Number.MAX_VALUE, "9999999999999h"), weight: 1}
);
const generation = fc.tuple(modelId, keepAlive, fc.constantFrom("/v1/chat/completions", "/v1/responses", "/v1/messages"))
    .map(([model, keep, route]): {route: string} & Record<string, unknown> => ({
        route,
        ...route === "/v1/responses" ? {input: "Once upon a time", max_output_tokens: 24}
            : {messages: [{role: "user", content: "Once upon a time"}], max_tokens: 24},
        model, ...keep !== undefined && {keep_alive: keep}
    }));
const call: fc.Arbitrary<Call> = fc.tuple(
    fc.constantFrom<Call["key"]>("user", "admin"),
    fc.oneof(
        {arbitrary: generation.map(({route, ...body}) => ({method: "POST" as const, path: route, body})), weight: 5},
        {arbitrary: fc.tuple(modelId, keepAlive).map(([id, keep]) => ({method: "POST" as const, path: `/v1/models/${id}/load`,
            body: keep === undefined ? {} : {keep_alive: keep}})), weight: 2},
        {arbitrary: modelId.map((id) => ({method: "POST" as const, path: `/v1/models/${id}/unload`, body: {}})), weight: 2},
        {arbitrary: fc.constantFrom("/v1/models", "/v1/status", "/v1/models/a").map((route) => ({method: "GET" as const, path: route})),
            weight: 1}
    ),
    fc.option(fc.integer({min: 0, max: 300}), {freq: 4})
).map(([key, request, abortAfterMs]) => ({key, ...request, ...abortAfterMs != null && {abortAfterMs}}));

/** Why an answer breaks a property, or null when it is one the docs allow for that call. */
function verdict(request: Call, status: number, text: string): string | null {
    if (status >= 500 && !(status === 503 && /model_crashed|overloaded|queue is full|model_memory/.test(text)))
        return `${status} ${text.slice(0, 160)}`;
    const pins = typeof request.body === "object" && request.body != null && "keep_alive" in request.body
        && [-1, "-1m"].includes((request.body as {keep_alive: unknown}).keep_alive as number);
    const managing = request.path.endsWith("/unload") || pins;
    if (request.key === "user" && managing && status !== 403 && status !== 400 && status !== 404)
        return `a user's ${request.path} ${JSON.stringify(request.body)} answered ${status}, not 403`;
    if (status >= 400 && !/"(error|type)"/.test(text))
        return `${status} without an error shape: ${text.slice(0, 120)}`;
    return null;
}

describe("fuzz: a model library's routes racing its requests", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-fuzz-library-"));
    let server: CliServer;
    const problems = new Map<string, number>();
    let answered = 0;
    let cancelled = 0;
    let calls = 0;
    let stored: {id: string, text: string};

    const send = async (key: string, method: string, route: string, body?: unknown, signal?: AbortSignal) => {
        const response = await fetch(`${server.url.replace(/\/v1$/, "")}${route}`, {
            method, signal, headers: {"authorization": `Bearer ${key}`, "content-type": "application/json"},
            body: body === undefined ? undefined : JSON.stringify(body)
        });
        return {status: response.status, text: await response.text()};
    };

    before(async () => {
        fs.mkdirSync(path.join(root, "models"));
        for (const id of ["a", "b"])
            fs.symlinkSync(models.chatml, path.join(root, "models", `${id}.gguf`));
        server = await serveCli(["--models-dir", path.join(root, "models"), "--data-dir", path.join(root, "data"),
            "--api-key", userKey, "--api-key", otherKey, "--admin-api-key", adminKey, "--max-loaded-models", "1",
            "--threads", "1", "--context-size", "1024"]);
        const created = await send(otherKey, "POST", "/v1/responses", {model: "a", input: "Keep me", max_output_tokens: 4});
        const id = (JSON.parse(created.text) as {id: string}).id;
        stored = {id, text: (await send(otherKey, "GET", `/v1/responses/${id}`)).text};

        await fc.assert(fc.asyncProperty(fc.array(call, {minLength: 4, maxLength: 8}), async (batch) => {
            calls += batch.length;
            await Promise.all(batch.map(async (request) => {
                const abort = new AbortController();
                const timer = request.abortAfterMs == null ? undefined : setTimeout(() => abort.abort(), request.abortAfterMs);
                try {
                    const answer = await send(request.key === "admin" ? adminKey : userKey, request.method, request.path,
                        request.body, abort.signal);
                    answered++;
                    const problem = verdict(request, answer.status, answer.text);
                    if (problem != null)
                        problems.set(problem, (problems.get(problem) ?? 0) + 1);
                } catch (error) {
                    const problem = `no answer: ${(error as Error).message}`;
                    if (!abort.signal.aborted)
                        problems.set(problem, (problems.get(problem) ?? 0) + 1);
                    else
                        cancelled++;
                } finally {
                    clearTimeout(timer);
                }
            }));
            // After each batch: the server answers within a second, and nothing stays in flight.
            const started = performance.now();
            const listed = await send(adminKey, "GET", "/v1/models");
            const listMs = performance.now() - started;
            if (listed.status !== 200 || listMs > 1000)
                problems.set(`GET /v1/models → ${listed.status} in ${Math.round(listMs)} ms`, 1);
            const deadline = Date.now() + 10_000;
            const inFlight = async () => (JSON.parse((await send(adminKey, "GET", "/v1/models")).text) as {
                data: {id: string, in_flight: number}[]
            }).data.filter((model) => model.in_flight > 0).map((model) => model.id);
            let busy = await inFlight();
            while (busy.length > 0 && Date.now() < deadline) {
                await new Promise((resolve) => setTimeout(resolve, 100));
                busy = await inFlight();
            }
            if (busy.length > 0)
                problems.set(`in_flight stays above 0 for ${busy.join(", ")} 10 s after the batch`, 1);
        }), {seed, numRuns: batches, endOnFailure: true});
    });
    after(() => {
        server?.child.kill("SIGKILL");
        fs.rmSync(root, {recursive: true, force: true});
    });

    it("every request got the documented answer, the server kept answering and nothing stayed in flight", () => {
        assert.deepEqual([...problems], []);
        assert.equal(answered + cancelled, calls, `${calls} calls: ${answered} answered, ${cancelled} cancelled by their client`);
        assert.ok(answered > calls / 3, `only ${answered} of ${calls} calls were answered before their client left`);
    });

    it("another key's stored response reads back unchanged", async () => {
        assert.equal((await send(otherKey, "GET", `/v1/responses/${stored.id}`)).text, stored.text);
    });
});
