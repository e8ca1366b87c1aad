import assert from "node:assert/strict";
import {spawn} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {Ajv2020} from "ajv/dist/2020.js";
import {startClientHarness, type ClientHarness} from "../helpers/clientHarness.js";
import {models, repoRoot} from "../helpers/paths.js";
import type {Exchange} from "../helpers/recordingProxy.js";

const codexBin = path.join(repoRoot, "node_modules/.bin/codex");
const keyVariable = "LOCAL_RESPONSES_TEST_KEY";
/**
 * Codex sends no output limit, and the 260K-parameter test model, far past its 512-token training
 * window in Codex's ~17k-token prompt, rarely emits its end token: left alone a turn runs for minutes.
 * The proxy bounds each turn with `max_output_tokens` and shows Codex the capped turn as completed
 * (Codex treats `response.incomplete` as an error). With a real model neither rewrite is needed.
 */
const turnTokenCap = 64;

type CodexRun = {code: number | null, events: Array<{type: string, [key: string]: any}>, stderr: string, ms: number, exchanges: Exchange[]};

describe("Codex CLI (codex exec --json, real engine, think model)", () => {
    let harness: ClientHarness;
    let codexHome: string;
    let workDir: string;
    let forceTool: string | null = null;
    let threadId: string;
    const figures: string[] = [];

    const runCodex = (args: string[]): Promise<CodexRun> => new Promise((resolve, reject) => {
        const first = harness.proxy.exchanges.length;
        const started = performance.now();
        const child = spawn(codexBin, args, {
            cwd: workDir,
            env: {PATH: process.env.PATH, HOME: codexHome, CODEX_HOME: codexHome, [keyVariable]: harness.apiKey, RUST_LOG: "error"},
            stdio: ["ignore", "pipe", "pipe"]
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk) => stdout += chunk);
        child.stderr.on("data", (chunk) => stderr += chunk);
        const timer = setTimeout(() => child.kill("SIGKILL"), 420_000);
        child.on("error", reject);
        child.on("close", (code) => {
            clearTimeout(timer);
            const events = stdout.split("\n").filter((line) => line.trim().startsWith("{")).map((line) => JSON.parse(line));
            resolve({code, events, stderr, ms: performance.now() - started, exchanges: harness.proxy.exchanges.slice(first)});
        });
    });

    /** The turns' generation requests, with what the server measured and reported. */
    const record = (label: string, run: CodexRun) => {
        for (const exchange of run.exchanges.filter((candidate) => candidate.path.endsWith("/responses") && candidate.method === "POST")) {
            const usage = harness.proxy.streams.find((stream) => stream.exchange === exchange)?.events.at(-1)?.response?.usage;
            figures.push(`${label}: input ${usage?.input_tokens} tokens (cached ${usage?.input_tokens_details?.cached_tokens}), ` +
                `first output item after ${Math.round(exchange.firstOutputMs ?? NaN)} ms, request ${Math.round(exchange.totalMs)} ms; codex exec ${Math.round(run.ms)} ms`);
        }
    };

    const agentMessages = (run: CodexRun): string[] => run.events
        .filter((event) => event.type === "item.completed" && event.item?.type === "agent_message")
        .map((event) => event.item.text as string);

    const assertTurnOk = (run: CodexRun) => {
        assert.equal(run.code, 0, `codex exited ${run.code}: ${run.stderr.slice(-2000)}\n${JSON.stringify(run.events.slice(-3))}`);
        assert.ok(run.events.some((event) => event.type === "turn.completed"), "no turn.completed");
        assert.ok(!run.events.some((event) => event.type === "turn.failed" || event.type === "error"), JSON.stringify(run.events.filter((event) => event.type === "error")));
    };

    /** The text of the last message the server produced in this run, as Codex must show it. */
    const lastServerText = (run: CodexRun): string => {
        const streams = harness.proxy.streams.filter((stream) => run.exchanges.includes(stream.exchange));
        const output = streams.at(-1)!.events.at(-1)!.response.output as Array<{type: string, content?: Array<{text: string}>}>;
        return output.filter((item) => item.type === "message").flatMap((item) => item.content!).map((part) => part.text).join("");
    };

    before(async () => {
        harness = await startClientHarness({model: models.think, contextSize: 32768, parallel: 1}, {
            request: (body, requestPath) => {
                if (!requestPath.endsWith("/responses") || body == null)
                    return body;
                const bounded = {...body, max_output_tokens: body.max_output_tokens ?? turnTokenCap};
                if (forceTool != null && body.tools?.some((tool: {name?: string}) => tool.name === forceTool)) {
                    bounded.tool_choice = {type: "function", name: forceTool};
                    forceTool = null;
                }
                return bounded;
            },
            event: (event) => (event.type === "response.incomplete" && event.response?.incomplete_details?.reason === "max_output_tokens"
                ? {...event, type: "response.completed", response: {...event.response, status: "completed", incomplete_details: null}}
                : event)
        });
        codexHome = fs.mkdtempSync(path.join(os.tmpdir(), "codex-home-"));
        workDir = fs.mkdtempSync(path.join(os.tmpdir(), "codex-work-"));
        fs.writeFileSync(path.join(codexHome, "config.toml"), [
            `model = "${harness.server.host.model!.id}"`,
            `model_provider = "local"`,
            `[model_providers.local]`,
            `name = "Local Responses"`,
            `base_url = "${harness.url}"`,
            `wire_api = "responses"`,
            `env_key = "${keyVariable}"`,
            `request_max_retries = 0`,
            `stream_max_retries = 0`,
            `stream_idle_timeout_ms = 400000`
        ].join("\n") + "\n");
    });

    after(async () => {
        await harness.close();
        fs.rmSync(codexHome, {recursive: true, force: true});
        fs.rmSync(workDir, {recursive: true, force: true});
    });

    it("a plain turn (with one forced tool call) exits 0 with the model's text", async (t) => {
        // The tiny model never calls a tool by itself: force the first request to call `get_goal`
        // (harmless, no arguments) so the session history holds a function call and its output.
        forceTool = "get_goal";
        const run = await runCodex(["exec", "--skip-git-repo-check", "--json", "-s", "read-only", "Tell me a story about a cat."]);
        record("plain turn", run);
        assertTurnOk(run);
        threadId = run.events.find((event) => event.type === "thread.started")!.thread_id;
        const messages = agentMessages(run);
        assert.ok(messages.length > 0, "no agent_message");
        assert.ok(lastServerText(run).includes(messages.at(-1)!.trim()), "Codex shows the server's text");

        const first = run.exchanges[0]!.requestBody;
        assert.equal(first.stream, true);
        assert.equal(first.store, false);
        assert.ok(first.tools.some((tool: {type: string}) => tool.type === "function"));
        t.diagnostic(figures.join("\n"));
    });

    it("an --output-schema turn returns JSON that validates against the schema", async () => {
        const schema = {
            type: "object",
            properties: {mood: {type: "string", enum: ["happy", "sad"]}, done: {type: "boolean"}},
            required: ["mood", "done"],
            additionalProperties: false
        };
        const schemaFile = path.join(workDir, "schema.json");
        fs.writeFileSync(schemaFile, JSON.stringify(schema));
        const run = await runCodex(["exec", "--skip-git-repo-check", "--ephemeral", "--json", "-s", "read-only", "--output-schema", schemaFile, "How is the cat?"]);
        record("output-schema turn", run);
        assertTurnOk(run);
        const format = run.exchanges[0]!.requestBody.text.format;
        assert.equal(format.type, "json_schema");
        const answer = JSON.parse(agentMessages(run).at(-1)!);
        const validate = new Ajv2020({strict: false}).compile(schema);
        assert.ok(validate(answer), JSON.stringify(validate.errors));
    });

    it("a resumed turn resends the whole history, tool items included", async () => {
        const run = await runCodex(["exec", "resume", threadId, "--skip-git-repo-check", "--json", "And then what happened?"]);
        record("resumed turn", run);
        assertTurnOk(run);
        const input = run.exchanges[0]!.requestBody.input as Array<{type?: string, role?: string, content?: unknown}>;
        const types = new Set(input.map((item) => item.type ?? "message"));
        // Codex 0.169 resends the tool items; it did not resend the think model's reasoning items for a model
        // it has no metadata for (measured), so they are not required here.
        for (const type of ["function_call", "function_call_output"])
            assert.ok(types.has(type), `history without ${type}: ${[...types].join(", ")}`);
        assert.ok(input.some((item) => item.role === "assistant"), "history without the assistant's earlier message");
        assert.ok(JSON.stringify(input).includes("Tell me a story about a cat."), "history without the first prompt");
        assert.ok(agentMessages(run).length > 0);
    });

    // Codex offers `apply_patch` as a freeform (custom) tool only to models it knows, or with this feature on.
    it("a turn with the default tool set, web search and the freeform apply_patch tool enabled", async () => {
        const run = await runCodex(["exec", "--skip-git-repo-check", "--ephemeral", "--json", "-s", "read-only", "-c", "web_search=\"live\"", "--enable", "apply_patch_freeform", "Say hi."]);
        record("tools turn", run);
        assertTurnOk(run);
        const tools = run.exchanges[0]!.requestBody.tools as Array<{type: string, name?: string}>;
        const kinds = new Set(tools.map((tool) => tool.type));
        assert.ok(kinds.has("function") && kinds.has("custom") && kinds.has("web_search"), [...kinds].join(", "));
        assert.ok(agentMessages(run).length > 0);
    });

    it("emitted only conformant objects and events", (t) => {
        const counts = harness.proxy.assertConformant();
        assert.ok(counts.events > 20, JSON.stringify(counts));
        t.diagnostic(figures.join("\n"));
    });
});
