import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {after, before, describe, it} from "node:test";
import Anthropic, {AuthenticationError, BadRequestError} from "@anthropic-ai/sdk";
import {skipUpstream, startClientHarness, type ClientHarness} from "../../helpers/clientHarness.js";
import {models} from "../../helpers/paths.js";
import {useTestServer} from "../../helpers/testServer.js";

const weatherTool = {
    name: "get_weather",
    description: "Get the current weather for a city",
    // An enum keeps the forced call short: the tiny model may not close a free string within the output limit.
    input_schema: {
        type: "object" as const,
        properties: {city: {type: "string", enum: ["Paris", "Oslo", "Rome"]}},
        required: ["city"],
        additionalProperties: false
    }
};

const claudeCodeCapture = new URL("../../../../shared/reference/anthropic/claude-code-request.json", import.meta.url);

function clientOf(server: {origin: string, apiKey: string}, apiKey = server.apiKey): Anthropic {
    return new Anthropic({baseURL: server.origin, apiKey, maxRetries: 0, timeout: 60_000});
}

const noForcedCalls = "llama-server does not force a tool call on the tiny models (docs/upstream.md)";

/**
 * The official `@anthropic-ai/sdk` against the real server (Messages on the Responses generation path), through the
 * client harness: on the local engine, or with `LOCAL_RESPONSES_TEST_ENGINE=upstream` in front of a real llama-server.
 */
describe("Anthropic Messages with @anthropic-ai/sdk (real engine)", () => {
    let harness: ClientHarness;
    before(async () => {
        harness = await startClientHarness({parallel: 2});
    });
    after(() => harness?.close());
    const server = {
        get origin() {
            return harness.url.replace(/\/v1$/, "");
        },
        get apiKey() {
            return harness.apiKey;
        },
        fetch: (path: string, init?: RequestInit & {json?: unknown}) => harness.server.fetch(path, init)
    };

    it("messages.create returns a message with text and usage", async () => {
        const message = await clientOf(server).messages.create({
            model: "local", max_tokens: 16, messages: [{role: "user", content: "Once upon a time"}]
        });
        assert.equal(message.type, "message");
        assert.equal(message.role, "assistant");
        assert.match(message.id, /^msg_/);
        assert.equal(message.content[0]?.type, "text");
        assert.ok(message.usage.input_tokens + (message.usage.cache_read_input_tokens ?? 0) > 0);
        assert.ok(message.usage.output_tokens > 0 && message.usage.output_tokens <= 16);
        assert.equal(message.usage.cache_creation_input_tokens, 0);
        assert.ok(["end_turn", "max_tokens"].includes(message.stop_reason!));
    });

    it("a stream sends every event type in order and its final message equals the streamed text", async () => {
        const stream = clientOf(server).messages.stream({
            model: "local", max_tokens: 12, system: [{type: "text", text: "You tell stories.", cache_control: {type: "ephemeral"}}],
            messages: [{role: "user", content: [{type: "text", text: "The dog"}]}]
        });
        const types: string[] = [];
        let streamed = "";
        stream.on("streamEvent", (event) => {
            types.push(event.type);
            if (event.type === "content_block_delta" && event.delta.type === "text_delta")
                streamed += event.delta.text;
        });
        const final = await stream.finalMessage();
        assert.equal(types[0], "message_start");
        assert.deepEqual(types.slice(-2), ["message_delta", "message_stop"]);
        for (const type of ["content_block_start", "content_block_delta", "content_block_stop"])
            assert.ok(types.includes(type), `no ${type} in ${types.join(", ")}`);
        const text = final.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
        assert.equal(text, streamed);
        assert.equal(final.stop_reason, "max_tokens");
        assert.ok(final.usage.output_tokens > 0);
    });

    it("/metrics counts Messages generations under their own protocol label, and their requests under /messages", async () => {
        await clientOf(server).messages.create({model: "local", max_tokens: 2, messages: [{role: "user", content: "Hi"}]});
        const metrics = await (await server.fetch("/metrics")).text();
        assert.match(metrics, /local_responses_generations_total\{protocol="messages",status="(completed|incomplete)"\} [1-9]/);
        assert.match(metrics, /local_responses_tokens_total\{protocol="messages",kind="output"\} [1-9]/);
        assert.match(metrics, /local_responses_http_requests_total\{method="POST",route="\/messages",status="200"\} [1-9]/);
        const status = await (await server.fetch("/v1/status")).json() as {protocols: Record<string, {generations: number}>};
        assert.ok(status.protocols.messages!.generations >= 1, JSON.stringify(status.protocols));
    });

    it("max_tokens reached is stop_reason max_tokens", async () => {
        const message = await clientOf(server).messages.create({
            model: "local", max_tokens: 2, messages: [{role: "user", content: "Tell me a long story"}]
        });
        assert.equal(message.stop_reason, "max_tokens");
        assert.equal(message.usage.output_tokens, 2);
    });

    it("stop_sequences cut the text and report the sequence", {skip: skipUpstream("a Chat Completions upstream does not say which stop "
        + "sequence matched")}, async () => {
        const client = clientOf(server);
        // `temperature` is accepted though this SDK's types dropped it: greedy answers repeat.
        const greedy = {model: "local", max_tokens: 24, temperature: 0,
            messages: [{role: "user", content: "Once upon a time"}]} as Anthropic.MessageCreateParamsNonStreaming;
        const free = await client.messages.create(greedy);
        const text = free.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
        const word = text.trim().split(/\s+/)[1];
        assert.ok(word != null && word.length > 0, `too short an answer to cut: ${JSON.stringify(text)}`);
        const cut = await client.messages.create({...greedy, stop_sequences: [word]});
        assert.equal(cut.stop_reason, "stop_sequence");
        assert.equal(cut.stop_sequence, word);
        assert.equal(cut.content[0]?.type === "text" ? cut.content[0].text : null, text.slice(0, text.indexOf(word)));
        // The engine stops there: the tokens after the stop sequence are never generated.
        assert.ok(cut.usage.output_tokens < free.usage.output_tokens, `${cut.usage.output_tokens} of ${free.usage.output_tokens} tokens`);
    });

    for (const choice of [{type: "tool" as const, name: "get_weather"}, {type: "any" as const}]) {
        it(`tool_choice '${choice.type}' forces a tool_use, and its tool_result turn `
            + `answers`, {skip: skipUpstream(noForcedCalls)}, async () => {
            const client = clientOf(server);
            const question = {role: "user" as const, content: "What is the weather in Paris? Use the tool."};
            const first = await client.messages.create({
                model: "local", max_tokens: 64, tools: [weatherTool], tool_choice: choice, messages: [question]
            });
            const call = first.content.find((block) => block.type === "tool_use");
            assert.ok(call != null && call.type === "tool_use", JSON.stringify(first.content));
            assert.equal(call.name, "get_weather");
            assert.match(call.id, /\S/);
            assert.ok(["Paris", "Oslo", "Rome"].includes((call.input as {city: string}).city), JSON.stringify(call.input));
            assert.equal(first.stop_reason, "tool_use");

            const second = await client.messages.create({
                model: "local", max_tokens: 16, tools: [weatherTool],
                messages: [
                    question, {role: "assistant", content: first.content},
                    {role: "user", content: [{type: "tool_result", tool_use_id: call.id, content: "sunny"}]}
                ]
            });
            assert.ok(["end_turn", "max_tokens", "tool_use"].includes(second.stop_reason!));
            assert.ok(second.usage.input_tokens + second.usage.cache_read_input_tokens!
                > first.usage.input_tokens + first.usage.cache_read_input_tokens!);
        });
    }

    it("a streamed tool_use: its input_json_delta fragments concatenate to the call's "
        + "input", {skip: skipUpstream(noForcedCalls)}, async () => {
        const stream = clientOf(server).messages.stream({
            model: "local", max_tokens: 64, tools: [weatherTool], tool_choice: {type: "tool", name: "get_weather"},
            messages: [{role: "user", content: "Weather in Oslo?"}]
        });
        let json = "";
        stream.on("streamEvent", (event) => {
            if (event.type === "content_block_delta" && event.delta.type === "input_json_delta")
                json += event.delta.partial_json;
        });
        const final = await stream.finalMessage();
        const call = final.content.find((block) => block.type === "tool_use");
        assert.ok(call != null && call.type === "tool_use");
        assert.deepEqual(JSON.parse(json), call.input);
        assert.equal(final.stop_reason, "tool_use");
    });

    it("a tool_result with is_error and a thinking block in the history are accepted", async () => {
        const message = await clientOf(server).messages.create({
            model: "local", max_tokens: 8, tools: [weatherTool], thinking: {type: "enabled", budget_tokens: 1024},
            messages: [
                {role: "user", content: "Weather in Rome?"},
                {role: "assistant", content: [
                    {type: "thinking", thinking: "I should call the tool.", signature: ""},
                    {type: "tool_use", id: "toolu_1", name: "get_weather", input: {city: "Rome"}}
                ]},
                {
                    role: "user", content: [
                        {type: "tool_result", tool_use_id: "toolu_1", is_error: true, content: [{type: "text", text: "service down"}]}
                    ]
                }
            ]
        });
        assert.equal(message.type, "message");
    });

    it("count_tokens counts the prompt as create renders it", async () => {
        const client = clientOf(server);
        const body = {
            model: "local", messages: [{role: "user" as const, content: "Weather in Rome?"}], tools: [weatherTool], system: "Be brief."
        };
        const counted = await client.messages.countTokens(body);
        assert.ok(counted.input_tokens > 0);
        const created = await client.messages.create({...body, max_tokens: 1});
        assert.equal(created.usage.input_tokens + created.usage.cache_read_input_tokens!, counted.input_tokens);
    });

    it("a missing max_tokens is Anthropic's 400 invalid_request_error", async () => {
        const response = await server.fetch("/v1/messages",
            {method: "POST", json: {model: "local", messages: [{role: "user", content: "Hi"}]}});
        assert.equal(response.status, 400);
        const body = await response.json() as {type: string, error: {type: string, message: string}};
        assert.equal(body.type, "error");
        assert.equal(body.error.type, "invalid_request_error");
        assert.match(body.error.message, /max_tokens/);
        await assert.rejects(
            clientOf(server).messages.create(
                {model: "local", messages: [{role: "user", content: "Hi"}]} as unknown as Anthropic.MessageCreateParamsNonStreaming
            ),
            (error: unknown) => error instanceof BadRequestError
                && (error.error as {error: {type: string}}).error.type === "invalid_request_error"
        );
    });

    it("a wrong x-api-key is Anthropic's 401 authentication_error", async () => {
        await assert.rejects(
            clientOf(server, "sk-wrong").messages.create({model: "local", max_tokens: 4, messages: [{role: "user", content: "Hi"}]}),
            (error: unknown) => error instanceof AuthenticationError && error.status === 401
                && (error.error as {type: string, error: {type: string}}).type === "error"
                && (error.error as {error: {type: string}}).error.type === "authentication_error"
        );
    });

    it("a body that is not JSON and an unknown /v1/messages path answer in Anthropic's shape", async () => {
        const broken = await server.fetch("/v1/messages",
            {method: "POST", headers: {"content-type": "application/json"}, body: "{\"model\":"});
        assert.equal(broken.status, 400);
        assert.equal((await broken.json() as {error: {type: string}}).error.type, "invalid_request_error");
        const unknown = await server.fetch("/v1/messages/batches", {method: "POST", json: {}});
        assert.equal(unknown.status, 404);
        assert.deepEqual(Object.keys(await unknown.json() as object), ["type", "error"]);
    });

    it("server tools, container and mcp_servers are refused by name", async () => {
        const refused = [
            {tools: [{type: "web_search_20250305", name: "web_search"}]},
            {container: "container_1"},
            {mcp_servers: [{type: "url", url: "https://example.invalid/mcp", name: "x"}]}
        ];
        for (const extra of refused) {
            const response = await server.fetch("/v1/messages?beta=true", {
                method: "POST", headers: {"anthropic-version": "2023-06-01", "anthropic-beta": "mcp-client-2025-04-04"},
                json: {model: "local", max_tokens: 4, messages: [{role: "user", content: "Hi"}], ...extra}
            });
            assert.equal(response.status, 400, JSON.stringify(extra));
            const body = await response.json() as {error: {type: string, message: string}};
            assert.equal(body.error.type, "invalid_request_error");
            assert.match(body.error.message, /web_search|container|mcp_servers/);
        }
    });
});

// These two run on the local engine only (the upstream run would repeat them there): the thought's signature is this
// server's own, and the captured request does not fit llama-server's 2048-token slot for stories260K.
describe("Anthropic Messages on a thinking model (real engine)", {skip: skipUpstream("the local engine's run covers the "
    + "sealed thought")}, () => {
    const server = useTestServer({model: models.think});

    it("streams thinking_delta and a signed thinking block, whose signature alone gives the thought back", async () => {
        const client = clientOf(server);
        const question = {role: "user" as const, content: "Once upon a time"};
        const stream = client.messages.stream({
            model: "local", max_tokens: 64, thinking: {type: "enabled", budget_tokens: 32}, messages: [question]
        });
        const deltas = new Set<string>();
        stream.on("streamEvent", (event) => {
            if (event.type === "content_block_delta")
                deltas.add(event.delta.type);
        });
        const final = await stream.finalMessage();
        const thought = final.content.find((block) => block.type === "thinking");
        assert.ok(thought?.type === "thinking" && thought.thinking.length > 0 && thought.signature.length > 0,
            JSON.stringify(final.content));
        assert.ok(deltas.has("thinking_delta") && deltas.has("signature_delta"), [...deltas].join(", "));

        const withThought = (block: Anthropic.ThinkingBlockParam) => ({
            model: "local", thinking: {type: "enabled" as const, budget_tokens: 32},
            messages: [
                question, {role: "assistant" as const, content: [block, {type: "text" as const, text: "The end."}]},
                {role: "user" as const, content: "More"}
            ]
        });
        const sent = await client.messages.countTokens(
            withThought({type: "thinking", thinking: thought.thinking, signature: thought.signature})
        );
        const signed = await client.messages.countTokens(withThought({type: "thinking", thinking: "", signature: thought.signature}));
        assert.equal(signed.input_tokens, sent.input_tokens);
        // Another server's signature reads as nothing, and is no error.
        await client.messages.countTokens(withThought({type: "thinking", thinking: "", signature: "EqQBCkYIBxgCKkD"}));
    });
});

describe("Anthropic Messages: Claude Code's captured first request (real engine)", {skip: skipUpstream("its ~30k-token prompt does not fit "
    + "llama-server's 2048-token slot")}, () => {
    // Its prompt is 30,110 tokens on stories260K's tokenizer: minutes of prefill on one thread, so the test reads the
    // stream's opening (every check passed, a sequence admitted) and the `ping`s of the prefill, then goes away.
    const server = useTestServer({contextSize: 32_768, stopSequences: ["."], streamKeepAliveSeconds: 0.2});

    it("is accepted as sent (?beta=true, its headers, 12 tools, adaptive thinking, context_management, output_config), with pings during "
        + "its prefill", async () => {
        const capture = JSON.parse(readFileSync(claudeCodeCapture, "utf8")) as {
            url: string, headers: Record<string, string>, body: Record<string, unknown>
        };
        const headers = Object.fromEntries(
            Object.entries(capture.headers).filter(([name]) => name.startsWith("anthropic-") || name === "x-app")
        );
        const counted = await server.fetch("/v1/messages/count_tokens?beta=true", {method: "POST", headers, json: capture.body});
        assert.equal(counted.status, 200);
        assert.ok((await counted.json() as {input_tokens: number}).input_tokens > 10_000);

        const stop = new AbortController();
        const response = await server.fetch(capture.url,
            {method: "POST", headers: {...headers, "x-api-key": server.apiKey}, json: capture.body, signal: stop.signal});
        assert.equal(response.status, 200);
        assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
        let text = "";
        const decoder = new TextDecoder();
        const reader = response.body!.getReader();
        while (!/event: ping\n/.test(text)) {
            const {value, done} = await reader.read();
            if (done)
                break;
            text += decoder.decode(value, {stream: true});
        }
        stop.abort();
        assert.match(text, /^event: message_start\ndata: \{"type":"message_start","message":\{"id":"msg_/);
        assert.match(text, /event: ping\ndata: \{"type":"ping"\}\n\n/);
    });
});
