import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {createOpenAI} from "@ai-sdk/openai";
import {streamText} from "ai";
import OpenAI from "openai";
import {CliUsageError, parseCliOptions} from "../../../src/host/cliOptions.js";
import {assertValidStream} from "../../helpers/conformance.js";
import {readFullStream} from "../../helpers/aiSdkStream.js";
import {syntheticModel} from "../../helpers/syntheticModel.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

/** A client that gives up, as Node's fetch does after 300 s, when no byte arrives for `idleMs` (headers included). */
async function readIdleBounded(server: TestServer, path: string, init: RequestInit & {json?: unknown},
    idleMs: number): Promise<{chunks: {at: number, text: string}[], text: string}> {
    const controller = new AbortController();
    let timer = setTimeout(() => controller.abort(new Error(`nothing arrived for ${idleMs} ms`)), idleMs);
    const rearm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => controller.abort(new Error(`nothing arrived for ${idleMs} ms`)), idleMs);
    };
    try {
        const res = await server.fetch(path, {...init, signal: controller.signal});
        rearm();
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
        const decoder = new TextDecoder();
        const chunks: {at: number, text: string}[] = [];
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            rearm();
            chunks.push({at: performance.now(), text: decoder.decode(chunk, {stream: true})});
        }
        return {chunks, text: chunks.map((chunk) => chunk.text).join("")};
    } finally {
        clearTimeout(timer);
    }
}

const keepAlive = ": keep-alive";

/**
 * Splits a raw SSE body into blocks and checks each is whole: a keep-alive comment, or one event (its `event:` line
 * naming the type its JSON `data:` line carries), OpenAI's `keepalive` events included and counted. A keep-alive
 * written inside an event would break one of the two.
 */
function parseBlocks(text: string): {events: any[], comments: number, keepAliveEvents: number} {
    assert.ok(text.endsWith("\n\n"), "the body ends on a block boundary");
    const events: any[] = [];
    let comments = 0;
    for (const block of text.slice(0, -2).split("\n\n")) {
        if (block === keepAlive) {
            comments++;
            continue;
        }
        const match = /^event: ([\w.]+)\ndata: (\{.*\})$/s.exec(block);
        assert.ok(match != null, `a block that is neither a whole event nor a keep-alive: ${JSON.stringify(block.slice(0, 200))}`);
        const event = JSON.parse(match[2]!);
        assert.equal(event.type, match[1]);
        assert.ok(!match[2]!.includes(keepAlive));
        events.push(event);
    }
    return {events, comments, keepAliveEvents: events.filter((event) => event.type === "keepalive").length};
}

/** A chunk that holds a keep-alive (a comment, or a `keepalive` event), written alone while the stream is idle. */
const isKeepAlive = (chunk: string) => chunk.startsWith(keepAlive) || chunk.startsWith("event: keepalive\n");

/** Longest silence between chunks, counting only those that `counts` accepts (and the request's start). */
function longestGap(chunks: {at: number, text: string}[], start: number, counts: (text: string) => boolean): number {
    let last = start;
    let longest = 0;
    for (const chunk of chunks.filter((entry) => counts(entry.text))) {
        longest = Math.max(longest, chunk.at - last);
        last = chunk.at;
    }
    return longest;
}

const idleMs = 1000;
/**
 * A prompt of ~40 tokens a part (14 parts: ~570 tokens): seconds of prompt evaluation for the full-size synthetic model
 * at 1 thread (~200 tokens/s here; CI's machine has been 2–3 × faster). Each call's prompt starts differently, so none
 * reuses another's evaluated prefix from the sequence's cache.
 */
const partText = "the little dog ran to the park and played with a red ball under the big green tree.";
const longPrompt = (tag: string, parts = 14) =>
    `${tag}. ${Array.from({length: parts}, (_, index) => `Part ${index}: ${partText}`).join(" ")}`;

describe("SSE keep-alive through a long prompt evaluation (full-size synthetic model, idle-bounded client)", () => {
    let server: TestServer;
    before(async () => {
        // The longest silence is under two intervals (plus timer lateness on a busy machine): well inside the client's 1 s.
        // One prompt thread: these prefills must outlast keep-alive intervals and the client's idle timeout on any machine.
        server = await startTestServer({
            model: await syntheticModel(), streamKeepAliveSeconds: 0.2, parallel: 1, contextSize: 2048, promptThreads: 1
        });
        const {input_tokens: tokens} = await server.client.responses.inputTokens.count({model: "m", input: longPrompt("Count")});
        assert.ok(tokens > 300, `the prompt is ${tokens} tokens`);
    });
    after(() => server.close());

    it("a foreground stream outlives a prefill longer than the client's idle timeout, keepalive events between whole events", async () => {
        // ~1,850 tokens: ~5 s here, still twice the client's timeout on a machine 2–3 × faster.
        const started = performance.now();
        const {chunks, text} = await readIdleBounded(server, "/v1/responses",
            {method: "POST", json: {model: "m", input: longPrompt("Foreground", 46), max_output_tokens: 4, stream: true}}, idleMs);
        const {events, keepAliveEvents} = parseBlocks(text);
        assertValidStream(events);
        assert.deepEqual(events.map((event) => event.sequence_number), events.map((_event, index) => index),
            "keepalive events take their place in the sequence");
        assert.deepEqual(events.slice(0, 2).map((event) => event.type), ["response.created", "response.in_progress"]);
        // Events, not comments, once the stream has begun: Codex's idle timer counts parsed events only.
        assert.ok(keepAliveEvents >= 2, `${keepAliveEvents} keepalive events`);
        const withoutKeepAlives = longestGap(chunks, started, (chunk) => !isKeepAlive(chunk));
        assert.ok(withoutKeepAlives > idleMs,
            `the response's own events left a ${Math.round(withoutKeepAlives)} ms silence: without keep-alives this client gives up`);
        assert.ok(longestGap(chunks, started, () => true) < idleMs);
    });

    it("requests waiting for the sequence get keep-alives before their first event (a late refusal is an error event), and a background "
        + "stream during the job's prefill", async () => {
        // parallel: 1: the first request holds the only sequence through its long prefill while the second waits.
        const first = readIdleBounded(server, "/v1/responses",
            {method: "POST", json: {model: "m", input: longPrompt("Holding"), max_output_tokens: 4, stream: true}}, idleMs);
        await new Promise((resolve) => setTimeout(resolve, 100));
        // Automatic compaction waits for the sequence too (its summary is a generation), then finds the summary saves nothing.
        const refusedLate = readIdleBounded(server, "/v1/responses", {method: "POST", json: {
            model: "m", stream: true, max_output_tokens: 4, context_management: [{type: "compaction", compact_threshold: 1}],
            input: [{role: "user", content: "Hi."}, {role: "assistant", content: "Yes."}, {role: "user", content: "Go on."}]
        }}, idleMs);
        const waiting = await readIdleBounded(server, "/v1/responses",
            {method: "POST", json: {model: "m", input: longPrompt("Waiting"), max_output_tokens: 4, stream: true}}, idleMs);
        // The stream opens with response.created before the wait (as OpenAI's does), then keepalive events while queued.
        const waitingEvents = parseBlocks(waiting.text).events;
        assert.equal(waitingEvents[0].type, "response.created");
        const whileQueued = waitingEvents.slice(1, waitingEvents.findIndex((event) => event.type === "response.in_progress"));
        assert.ok(whileQueued.length >= 2 && whileQueued.every((event) => event.type === "keepalive"),
            `keep-alives while queued: ${JSON.stringify(whileQueued.map((event) => event.type))}`);
        assertValidStream(waitingEvents);
        assertValidStream(parseBlocks((await first).text).events);
        // Refused after its stream opened (200 and keep-alives already sent): the refusal is the stream's one `error` event.
        const late = parseBlocks((await refusedLate).text);
        assert.ok(late.comments >= 1);
        assertValidStream(late.events);
        assert.deepEqual(late.events.map((event) => [event.type, event.code]), [["error", "context_length_exceeded"]]);

        const job = await server.client.responses.create({
            model: "m", input: longPrompt("Background"), max_output_tokens: 4, background: true
        });
        const streamed = await readIdleBounded(server, `/v1/responses/${job.id}?stream=true`, {}, idleMs);
        const {events, comments} = parseBlocks(streamed.text);
        assertValidStream(events);
        assert.ok(comments >= 2, `${comments} keep-alives on the background stream`);
    });

    it("the openai SDK parses a stream carrying keepalive events, with create and with its stream helper", async () => {
        let keepAlives = 0;
        // Counts the keep-alives in the very bytes the SDK parses.
        const countingFetch: typeof fetch = async (input, init) => {
            const res = await fetch(input, init);
            const [forSdk, forCount] = res.body!.tee();
            void (async () => {
                for await (const chunk of forCount as unknown as AsyncIterable<Uint8Array>)
                    keepAlives += Buffer.from(chunk).toString().split("event: keepalive\n").length - 1;
            })();
            return new Response(forSdk, {status: res.status, headers: res.headers});
        };
        const client = new OpenAI({baseURL: server.url, apiKey: server.apiKey, maxRetries: 0, fetch: countingFetch});
        const stream = await client.responses.create({model: "m", input: longPrompt("Sdk"), max_output_tokens: 4, stream: true});
        const events = [];
        for await (const event of stream)
            events.push(event);
        assertValidStream(events);
        assert.deepEqual(events.slice(0, 2).map((event) => event.type), ["response.created", "response.in_progress"]);
        assert.ok(keepAlives >= 2 && events.filter((event) => (event.type as string) === "keepalive").length === keepAlives,
            `${keepAlives} keep-alives reached the SDK`);

        // The helper that accumulates the response (it refuses any event before response.created) takes them in stride.
        const before = keepAlives;
        const helper = client.responses.stream({model: "m", input: longPrompt("Helper"), max_output_tokens: 4});
        const final = await helper.finalResponse();
        assert.ok(["completed", "incomplete"].includes(final.status!), final.status);
        assert.ok(keepAlives - before >= 2, `${keepAlives - before} keep-alives reached the stream helper`);
    });
});

describe("SSE keep-alive interleaved with token events (1 ms interval)", () => {
    let server: TestServer;
    before(async () => {
        server = await startTestServer({model: await syntheticModel(), streamKeepAliveSeconds: 0.001, parallel: 1, contextSize: 2048});
    });
    after(() => server.close());

    it("never writes a keep-alive inside an event's bytes", async () => {
        // Greedy: the random-weight model's answer is then the same every run (43 text deltas); sampled, it once ended
        // after 7 (seen in CI).
        const res = await server.fetch("/v1/responses",
            {method: "POST", json: {model: "m", input: "Tell me a story.", max_output_tokens: 48, temperature: 0, stream: true}});
        const {events, keepAliveEvents} = parseBlocks(await res.text());
        assertValidStream(events);
        assert.deepEqual(events.map((event) => event.sequence_number), events.map((_event, index) => index));
        const deltas = events.filter((event) => event.type === "response.output_text.delta").length;
        assert.ok(deltas >= 8, `${deltas} deltas`);
        assert.ok(keepAliveEvents >= deltas / 2, `keepalive events between token events (${keepAliveEvents} for ${deltas} deltas)`);
    });

    it("the AI SDK's strict stream validation and the OpenAI SDK's stream helper take keepalive events between tokens", async () => {
        const result = streamText({
            model: createOpenAI({baseURL: server.url, apiKey: server.apiKey}).responses("m"), prompt: "Tell me a story.",
            maxOutputTokens: 24
        });
        const {text, errors} = await readFullStream(result);
        assert.deepEqual(errors, []);
        assert.equal(text, await result.text);

        const helper = server.client.responses.stream({model: "m", input: "Tell me a story.", max_output_tokens: 24});
        let keepAlives = 0;
        let deltas = "";
        for await (const event of helper) {
            if ((event.type as string) === "keepalive")
                keepAlives++;
            if (event.type === "response.output_text.delta")
                deltas += event.delta;
        }
        const final = await helper.finalResponse();
        assert.ok(keepAlives > 0, "keepalive events reached the helper");
        assert.equal(final.output_text, deltas, "the accumulated response is the streamed text");
    });
});

describe("--stream-keepalive-secs", () => {
    it("defaults to 15 s, reads the flag and its environment variable, and 0 disables", () => {
        assert.equal(parseCliOptions([], {}).config.streamKeepAliveSeconds, 15);
        assert.equal(parseCliOptions(["--stream-keepalive-secs", "0"], {}).config.streamKeepAliveSeconds, 0);
        assert.equal(parseCliOptions([], {LOCAL_RESPONSES_STREAM_KEEPALIVE_SECS: "30"}).config.streamKeepAliveSeconds, 30);
        for (const bad of ["--stream-keepalive-secs=-1", "--stream-keepalive-secs=1.5", "--stream-keepalive-secs=soon"])
            assert.throws(() => parseCliOptions([bad], {}), CliUsageError, bad);
    });
});
