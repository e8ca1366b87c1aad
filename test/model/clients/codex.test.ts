import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {Ajv2020} from "ajv/dist/2020.js";
import {skipUpstream, startClientHarness, type ClientHarness} from "../../helpers/clientHarness.js";
import {codexEvents, runCodex as runCodexCli, writeCodexConfig} from "../../helpers/codexCli.js";
import type {Exchange} from "../../helpers/recordingProxy.js";

type CodexRun = {code: number | null, events: Array<{type: string, [key: string]: any}>, stderr: string, ms: number, exchanges: Exchange[]};

/**
 * Codex sends no output limit and treats `response.incomplete` as an error. The 260K-parameter test model,
 * far past its 512-token training window in Codex's 13k+-token prompt, rarely emits its end token, so the
 * server runs as an operator would run it for such a model: `--stop "."` ends each text answer at its first
 * sentence as a normal stop (`response.completed`, the server's own). Nothing the server sends is changed.
 * The ChatML model is used: its forced call ends after one call even with Codex's `parallel_tool_calls: true`.
 * Turn order keeps the one KV sequence's prefix useful: the resumed turn extends the plain turn's prompt.
 */

const upstreamSkip = skipUpstream(
    "Codex's ~13k-token prompt does not fit the 2048-token slot llama-server gives stories260K (its trained context); "
        + "test/model/clients/upstream.test.ts runs codex exec with its developer messages cut"
);

describe("Codex CLI (codex exec --json, real engine)", {skip: upstreamSkip}, () => {
    let harness: ClientHarness;
    let codexHome: string;
    let workDir: string;
    let forceTool: string | null = null;
    let threadId: string;
    /** Codex's own base instructions for a model it has no metadata for, as it sent them in the plain turn. */
    let baseInstructions: string;
    const figures: string[] = [];

    const runCodex = async (args: string[]): Promise<CodexRun> => {
        const first = harness.proxy.exchanges.length;
        const {code, stdout, stderr, ms} = await runCodexCli(args, {cwd: workDir, codexHome, apiKey: harness.apiKey, timeoutMs: 420_000});
        return {code, events: codexEvents(stdout), stderr, ms, exchanges: harness.proxy.exchanges.slice(first)};
    };

    /** The server's streams for this run's generation requests, in order. */
    const generations = (run: CodexRun) => harness.proxy.streams.filter((stream) =>
        run.exchanges.includes(stream.exchange) && stream.exchange.method === "POST" && stream.exchange.path.endsWith("/responses"));

    /** What each generation request cost: prompt evaluation is the time to the first output item. */
    const record = (label: string, run: CodexRun) => {
        for (const [index, {exchange, events}] of generations(run).entries()) {
            const response = events.at(-1)?.response;
            const usage = response?.usage;
            const evaluated = usage == null ? NaN : usage.input_tokens - usage.input_tokens_details.cached_tokens;
            const firstMs = exchange.firstOutputMs ?? NaN;
            figures.push(`${label} #${index + 1}: ${response?.status}, input ${usage?.input_tokens} tokens `
                + `(cached ${usage?.input_tokens_details?.cached_tokens}, ` +
                `evaluated ${evaluated}), first output item after ${(firstMs / 1000).toFixed(1)} s `
                    + `(${Math.round(evaluated / (firstMs / 1000))} tokens/s), ` +
                `output ${usage?.output_tokens} tokens, request ${(exchange.totalMs / 1000).toFixed(1)} s`);
        }
        figures.push(`${label}: codex exec ${(run.ms / 1000).toFixed(1)} s`);
    };

    const agentMessages = (run: CodexRun): string[] => run.events
        .filter((event) => event.type === "item.completed" && event.item?.type === "agent_message")
        .map((event) => event.item.text as string);

    const assertTurnOk = (run: CodexRun) => {
        assert.equal(run.code, 0, `codex exited ${run.code}: ${run.stderr.slice(-2000)}\n${JSON.stringify(run.events.slice(-3))}`);
        assert.ok(run.events.some((event) => event.type === "turn.completed"), "no turn.completed");
        assert.ok(!run.events.some((event) => event.type === "turn.failed" || event.type === "error"),
            JSON.stringify(run.events.filter((event) => event.type === "error")));
        // The server itself completed every generation (no retries, nothing cut by a limit).
        const terminals = generations(run).map(({events}) => events.at(-1)?.type);
        assert.ok(terminals.length > 0 && terminals.every((type) => type === "response.completed"), terminals.join(", "));
    };

    /** The text of the last message the server produced in this run, as Codex must show it. */
    const lastServerText = (run: CodexRun): string => {
        const streams = harness.proxy.streams.filter((stream) => run.exchanges.includes(stream.exchange));
        const output = streams.at(-1)!.events.at(-1)!.response.output as Array<{type: string, content?: Array<{text: string}>}>;
        return output.filter((item) => item.type === "message").flatMap((item) => item.content!).map((part) => part.text).join("");
    };

    before(async () => {
        // Keep-alives every 2 s against Codex's idle timeout of 20 s (below): the 13k-token prefills take 35 s to minutes here, so
        // each turn passes only because Codex counts the server's `keepalive` events (it drops SSE comments).
        harness = await startClientHarness({contextSize: 32768, parallel: 1, stopSequences: ["."], streamKeepAliveSeconds: 2}, {
            // The one change to a request: the tiny model never calls a tool by itself, so the plain turn's first
            // request names a tool in `tool_choice` (what the server answers, and what Codex does with it, are real).
            request: (body, requestPath) => {
                if (forceTool == null || !requestPath.endsWith("/responses")
                    || !body?.tools?.some((tool: {name?: string}) => tool.name === forceTool))
                    return body;
                const forced = {...body, tool_choice: {type: "function", name: forceTool}};
                forceTool = null;
                return forced;
            }
        });
        codexHome = fs.mkdtempSync(path.join(os.tmpdir(), "codex-home-"));
        workDir = fs.mkdtempSync(path.join(os.tmpdir(), "codex-work-"));
        writeCodexConfig(codexHome, harness.server.host.model!.id, harness.url);
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
        // The server's call went to Codex, which ran it and sent its output back in a second request.
        const [call, answer] = generations(run);
        assert.ok(
            call!.events.at(-1)!.response.output.some(
                (item: {type: string, name?: string}) => item.type === "function_call" && item.name === "get_goal"
            )
        );
        assert.ok(answer!.exchange.requestBody.input.some((item: {type?: string}) => item.type === "function_call_output"));

        const first = run.exchanges[0]!.requestBody;
        baseInstructions = first.input[0].content[0].text;
        assert.equal(first.stream, true);
        assert.equal(first.store, false);
        assert.ok(first.tools.some((tool: {type: string}) => tool.type === "function"));
        t.diagnostic(figures.join("\n"));
    });

    it("a resumed turn resends the whole history, tool items included", async () => {
        const run = await runCodex(["exec", "resume", threadId, "--skip-git-repo-check", "--json", "And then what happened?"]);
        record("resumed turn", run);
        assertTurnOk(run);
        const input = run.exchanges[0]!.requestBody.input as Array<{type?: string, role?: string, content?: unknown}>;
        const types = new Set(input.map((item) => item.type ?? "message"));
        // Reasoning items are not checked: the ChatML model produces none (and Codex 0.169 did not resend the
        // think model's reasoning items for a model it has no metadata for, measured earlier).
        for (const type of ["function_call", "function_call_output"])
            assert.ok(types.has(type), `history without ${type}: ${[...types].join(", ")}`);
        assert.ok(input.some((item) => item.role === "assistant"), "history without the assistant's earlier message");
        assert.ok(JSON.stringify(input).includes("Tell me a story about a cat."), "history without the first prompt");
        assert.ok(agentMessages(run).length > 0);
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
        const run = await runCodex([
            "exec", "--skip-git-repo-check", "--ephemeral", "--json", "-s", "read-only", "--output-schema", schemaFile, "How is the cat?"
        ]);
        record("output-schema turn", run);
        assertTurnOk(run);
        const format = run.exchanges[0]!.requestBody.text.format;
        assert.equal(format.type, "json_schema");
        const answer = JSON.parse(agentMessages(run).at(-1)!);
        const validate = new Ajv2020({strict: false}).compile(schema);
        assert.ok(validate(answer), JSON.stringify(validate.errors));
    });

    /**
     * Codex 0.169 offers `apply_patch` (a custom tool with a Lark grammar) only to models its catalog describes
     * (`--enable apply_patch_freeform` does not add it for an unknown model, measured). An operator declares the
     * local model with `model_catalog_json`: Codex's own base instructions, `apply_patch_tool_type = "freeform"`.
     */
    const writeModelCatalog = (): string => {
        const file = path.join(codexHome, "model-catalog.json");
        fs.writeFileSync(file, JSON.stringify({models: [{
            slug: harness.server.host.model!.id, display_name: harness.server.host.model!.id, description: "Local Responses",
            default_reasoning_level: "medium", supported_reasoning_levels: [{effort: "medium", description: "Medium"}],
            shell_type: "shell_command", visibility: "list", supported_in_api: true, priority: 1, upgrade: null,
            base_instructions: baseInstructions, supports_reasoning_summaries: false, default_reasoning_summary: "none",
            support_verbosity: false, default_verbosity: null, apply_patch_tool_type: "freeform",
            truncation_policy: {mode: "tokens", limit: 10000}, supports_parallel_tool_calls: true, context_window: 32768,
            effective_context_window_percent: 95, experimental_supported_tools: [], input_modalities: ["text"], supports_search_tool: false
        }]}));
        return file;
    };

    it("a turn with the default tool set: function tools, web search, apply_patch as a custom tool", async () => {
        const catalog = writeModelCatalog();
        const run = await runCodex([
            "exec", "--skip-git-repo-check", "--ephemeral", "--json", "-s", "read-only", "-c", "web_search=\"live\"", "-c",
            `model_catalog_json="${catalog}"`, "Say hi."
        ]);
        record("tools turn", run);
        assertTurnOk(run);
        const tools = run.exchanges[0]!.requestBody.tools as Array<{type: string, name?: string}>;
        const kinds = new Set(tools.map((tool) => tool.type));
        assert.ok(kinds.has("function") && kinds.has("custom") && kinds.has("web_search"), [...kinds].join(", "));
        const applyPatch = tools.find((tool) => tool.name === "apply_patch") as {type: string,
            format?: {type: string, syntax?: string}} | undefined;
        assert.equal(applyPatch?.type, "custom");
        assert.equal(applyPatch?.format?.type, "grammar");
        assert.ok(agentMessages(run).length > 0);
    });

    it("emitted only conformant objects and events", (t) => {
        const counts = harness.proxy.assertConformant();
        assert.ok(counts.events > 20, JSON.stringify(counts));
        t.diagnostic(figures.join("\n"));
    });
});
