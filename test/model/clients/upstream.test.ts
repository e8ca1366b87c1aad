import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {createOpenAI} from "@ai-sdk/openai";
import {Agent, OpenAIResponsesModel, run, setTracingDisabled} from "@openai/agents";
import {generateText, streamText} from "ai";
import OpenAI from "openai";
import {defaultConfig} from "../../../src/host/config.js";
import {readAgentDeltas} from "../../helpers/agentsStream.js";
import {readFullStream} from "../../helpers/aiSdkStream.js";
import {startClientHarness, type ClientHarness} from "../../helpers/clientHarness.js";
import {codexEvents, runCodex, writeCodexConfig} from "../../helpers/codexCli.js";
import {assertValidSocketTurn, assertValidStream} from "../../helpers/conformance.js";
import {buildTimeoutMs, startLlamaServer, type LlamaServerProcess} from "../../helpers/llamaServer.js";
import {capturesDir, models} from "../../helpers/paths.js";
import {SocketClient} from "../../helpers/socketClient.js";
import {readSse} from "../../helpers/testServer.js";

/**
 * The other client suites' representative cases with the server in `--engine upstream` in front of one real
 * llama-server on stories260K (test/clients/*.test.ts run them in full on the local engine): the Agents SDK, the
 * AI SDK, WebSocket mode, captured Codex requests and the Codex CLI itself, all through the recording proxy.
 * The operator stop sequence "." (`--stop`, sent upstream as `stop`) ends each answer at its first sentence as a
 * completed turn, which the Agents SDK and Codex require.
 * Codex's own prompt (its ~27k characters of developer instructions) does not fit the slot this model has in
 * llama-server (8192 tokens, four times its trained context; prompt evaluation of ~20k tokens also takes over a minute here), so
 * the one change made to Codex's requests is that each developer message is cut to its first 600 characters;
 * everything else (tools, the custom apply_patch, hosted tools, include, store: false, the function-call
 * history, the streaming Codex reads) is as Codex sent it.
 */
const developerChars = 600;

function cutDeveloperMessages(body: any): any {
    if (!Array.isArray(body?.input))
        return body;
    return {
        ...body,
        input: body.input.map((item: any) => item?.role !== "developer" || !Array.isArray(item.content) ? item
            : {
                ...item, content: item.content.map(
                    (part: any) => typeof part?.text === "string" ? {...part, text: part.text.slice(0, developerChars)} : part
                )
            })
    };
}

describe("client suites over --engine upstream (a real llama-server)", () => {
    let upstream: LlamaServerProcess;
    let harness: ClientHarness;
    before(async () => {
        // 8192 a slot: Codex's tools, its namespaced sub-agent functions included, take ~3k tokens on their own. llama-server
        // caps a slot at the model's trained context (2048 for stories260K) unless the model says more.
        upstream = await startLlamaServer({
            model: models.chatml, slots: 2, contextPerSlot: 8192, extraArgs: ["--override-kv", "llama.context_length=int:8192"]
        });
        harness = await startClientHarness({
            engine: "upstream",
            contextSize: 8192,
            upstream: {...defaultConfig().upstream, urls: [upstream.url], healthIntervalMs: 1000, timeoutSeconds: 60},
            stopSequences: ["."]
        }, {request: (body, requestPath) => requestPath.endsWith("/responses") ? cutDeveloperMessages(body) : body});
    }, {timeout: buildTimeoutMs});
    after(async () => {
        await harness?.close();
        await upstream?.stop();
    });

    it("Agents SDK: a plain run, a streamed run and a previousResponseId continuation complete", async () => {
        setTracingDisabled(true);
        const client = new OpenAI({baseURL: harness.url, apiKey: harness.apiKey, maxRetries: 0});
        const agent = new Agent({
            name: "Storyteller", instructions: "Tell short stories.", model: new OpenAIResponsesModel(client, "local-model"),
            modelSettings: {maxTokens: 128}
        });
        const first = await run(agent, "Tell me about a cat.");
        assert.ok(typeof first.finalOutput === "string" && first.finalOutput.length > 0);
        assert.ok(first.lastResponseId?.startsWith("resp_"));

        const streamed = await run(agent, "And then?", {stream: true, previousResponseId: first.lastResponseId});
        const deltas = await readAgentDeltas(streamed);
        assert.ok(deltas.length > 0);
        assert.equal(streamed.finalOutput, deltas);
        const stored = await client.responses.retrieve(streamed.lastResponseId!);
        assert.equal(stored.previous_response_id, first.lastResponseId);
        assert.equal(stored.status, "completed");
        assert.ok(stored.usage!.input_tokens > first.rawResponses[0]!.usage.inputTokens,
            "the continuation carried the first turn upstream");
    });

    it("AI SDK: generateText, and streamText through the SDK's strict event validation", async () => {
        const provider = createOpenAI({baseURL: harness.url, apiKey: harness.apiKey});
        const generated = await generateText({model: provider.responses("local-model"), prompt: "Tell me a story.", maxOutputTokens: 16});
        assert.ok(generated.text.length > 0);
        assert.ok(generated.usage.inputTokens! > 0 && generated.usage.outputTokens! <= 16);
        const result = streamText({model: provider.responses("local-model"), prompt: "Once upon a time", maxOutputTokens: 16});
        const {text, errors} = await readFullStream(result);
        assert.deepEqual(errors, []);
        assert.ok(text.length > 0);
        assert.equal(text, await result.text);
    });

    it("WebSocket mode: two turns on one socket, the second continuing the first (store: false)", async () => {
        const socket = await SocketClient.open(`${harness.server.origin.replace(/^http/, "ws")}/v1/responses`,
            {authorization: `Bearer ${harness.apiKey}`});
        try {
            const ended = (type: string) => type === "response.completed" || type === "response.incomplete";
            const firstTurn = await socket.turn({model: "m", input: "Tell me a story.", store: false, max_output_tokens: 16});
            assertValidSocketTurn(firstTurn);
            const first = firstTurn.at(-1)!;
            assert.ok(ended(first.type), JSON.stringify(first));
            const deltas = firstTurn.filter((message) => message.type === "response.output_text.delta").map((message) => message.delta)
                .join("");
            assert.equal(first.response.output[0].content[0].text, deltas);
            const secondTurn = await socket.turn({
                model: "m", input: "And then?", store: false, previous_response_id: first.response.id, max_output_tokens: 16
            });
            assertValidSocketTurn(secondTurn);
            const second = secondTurn.at(-1)!;
            assert.ok(ended(second.type), JSON.stringify(second));
            assert.equal(second.response.previous_response_id, first.response.id);
            assert.ok(second.response.usage.input_tokens > first.response.usage.input_tokens + first.response.usage.output_tokens,
                "the socket's history went upstream");
        } finally {
            await socket.close();
        }
    });

    it("captured Codex requests (first turn, then the follow-up with a function call and its output) stream completed "
        + "responses", async () => {
        for (const capture of ["codex-request.json", "codex-request-followup.json"]) {
            const body = cutDeveloperMessages(JSON.parse(fs.readFileSync(path.join(capturesDir, capture), "utf8")));
            const res = await fetch(`${harness.url}/responses`, {
                method: "POST", body: JSON.stringify(body),
                headers: {"content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${harness.apiKey}`}
            });
            assert.equal(res.status, 200, await res.clone().text());
            const events = await readSse(res);
            assertValidStream(events);
            const terminal = events.at(-1)!;
            assert.equal(terminal.type, "response.completed", JSON.stringify(terminal.response?.error ?? terminal));
            assert.ok(events.some((event) => event.type === "response.output_item.done"), "Codex reads items from output_item.done");
            const runnable = new Set(["function", "custom", "namespace", "tool_search"]);
            const declared = body.tools.filter((tool: {type: string}) => runnable.has(tool.type));
            // Echoed as declared (the custom apply_patch, the client's tool_search; docs/api.md, Tools); hosted ones are
            // ignored, as on the local engine.
            const named = (tool: {type: string, name?: string}) => tool.name ?? tool.type;
            assert.deepEqual(terminal.response.tools.map(named), declared.map(named));
            assert.ok(terminal.response.usage.output_tokens > 0);
        }
    });

    it("Codex CLI: codex exec completes a turn and shows the server's text", {timeout: 120_000}, async () => {
        const codexHome = fs.mkdtempSync(path.join(os.tmpdir(), "codex-home-"));
        const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "codex-work-"));
        try {
            writeCodexConfig(codexHome, harness.server.host.model!.id, harness.url);
            const first = harness.proxy.exchanges.length;
            const {code, stdout, stderr} = await runCodex([
                "exec", "--skip-git-repo-check", "--ephemeral", "--json", "-s", "read-only", "Tell me a story about a cat."
            ],
            {cwd: workDir, codexHome, apiKey: harness.apiKey, timeoutMs: 100_000});
            const events = codexEvents(stdout);
            assert.equal(code, 0, `codex exited ${code}: ${stderr.slice(-2000)}\n${JSON.stringify(events.slice(-3))}`);
            assert.ok(events.some((event) => event.type === "turn.completed"), "no turn.completed");
            const messages = events.filter((event) => event.type === "item.completed" && event.item?.type === "agent_message")
                .map((event) => event.item!.text!);
            assert.ok(messages.length > 0, "no agent_message");
            const streams = harness.proxy.streams.filter(
                (stream) => harness.proxy.exchanges.indexOf(stream.exchange) >= first && stream.exchange.path.endsWith("/responses")
            );
            assert.ok(streams.length > 0 && streams.every((stream) => stream.events.at(-1)?.type === "response.completed"));
            const output = streams.at(-1)!.events.at(-1)!.response.output as Array<{type: string, content?: Array<{text: string}>}>;
            const serverText = output.filter((item) => item.type === "message").flatMap((item) => item.content!).map((part) => part.text)
                .join("");
            assert.ok(serverText.includes(messages.at(-1)!.trim()), "Codex shows the server's text");
            const sent = streams[0]!.exchange.requestBody;
            assert.equal(sent.stream, true);
            assert.equal(sent.store, false);
        } finally {
            fs.rmSync(codexHome, {recursive: true, force: true});
            fs.rmSync(workDir, {recursive: true, force: true});
        }
    });

    it("emitted only conformant objects and events", () => {
        const counts = harness.proxy.assertConformant();
        assert.ok(counts.responses + counts.events > 20, JSON.stringify(counts));
    });
});
