import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {assertValidResponse, assertValidSocketTurn, assertValidStream} from "../../helpers/conformance.js";
import {SocketClient} from "../../helpers/socketClient.js";
import {readSse, useTestServer} from "../../helpers/testServer.js";

const story = "The little dog ran to the park and played with a red ball under the big green tree all day long.";
/** A history of `turns` user/assistant exchanges, each about sixty tokens. */
function history(turns: number): any[] {
    return Array.from({length: turns}, (_, index) => [
        {role: "user", content: `Turn ${index}: ${story}`},
        {role: "assistant", content: `Answer ${index}: ${story}`}
    ]).flat().concat([{role: "user", content: "What happened next?"}]);
}

describe("compaction (real engine, openai SDK)", () => {
    const server = useTestServer();

    const count = async (input: any[]) => (await server.client.responses.inputTokens.count({model: "m", input})).input_tokens;

    it("compacts a history into kept turns and one sealed compaction item that replays as input", async () => {
        const input = history(6);
        const compacted = await server.client.responses.compact({model: "m", input, max_output_tokens: 32} as any);
        assert.equal(compacted.object, "response.compaction");
        assert.match(compacted.id, /^resp_/);
        assert.equal((compacted as any).model, "stories260K");
        const item = compacted.output.at(-1) as any;
        assert.equal(item.type, "compaction");
        const [body] = item.encrypted_content.split(".");
        const payload = JSON.parse(Buffer.from(body, "base64url").toString());
        assert.equal(typeof payload.summary, "string", "base64url JSON: readable, integrity-checked");
        assert.ok(payload.replaced.length > 0);
        const retained = compacted.output.slice(0, -1) as any[];
        assert.equal(retained.at(-1).content[0].text, "What happened next?", "the latest user turn is kept");
        assert.ok(retained.length < input.length);
        assert.ok(compacted.usage.output_tokens > 0 && compacted.usage.output_tokens <= 32);

        const replay = [...compacted.output, {role: "user", content: "Tell me more."}];
        assert.ok(await count(replay) < await count([...input, {role: "user", content: "Tell me more."}]),
            "the replayed summary is shorter than the turns it replaced");
        const next = await server.client.responses.create({model: "m", input: replay as any, max_output_tokens: 8});
        assertValidResponse(next);
        assert.ok(next.output.length > 0);

        const forged = Buffer.from(JSON.stringify({...payload, summary: "forged"})).toString("base64url");
        const tampered = {...item, encrypted_content: `${forged}.${item.encrypted_content.split(".")[1]}`};
        const refused = await server.fetch("/v1/responses",
            {method: "POST", json: {model: "m", input: [tampered, {role: "user", content: "hi"}]}});
        assert.equal(refused.status, 400);
        assert.equal((await refused.json()).error.code, "invalid_encrypted_content");
    });

    it("replays a compaction item through previous_response_id", async () => {
        const compacted = await server.client.responses.compact({model: "m", input: history(5), max_output_tokens: 24} as any);
        const first = await server.client.responses.create({model: "m", input: compacted.output as any, max_output_tokens: 4});
        const inputItems = await server.client.responses.inputItems.list(first.id, {order: "asc"});
        assert.ok(inputItems.data.some((entry: any) => entry.type === "compaction"), "stored history keeps the compaction item");
        const second = await server.client.responses.create({
            model: "m", input: "And then?", previous_response_id: first.id, max_output_tokens: 4
        });
        assert.ok(second.usage!.input_tokens < await count(history(5)), "the chain renders the summary, not the replaced turns");
    });

    it("refuses stream, previous_response_id, conversation and a history longer than the context", async () => {
        const input = history(3);
        for (const extra of [{stream: true}, {previous_response_id: "resp_x"}, {conversation: "conv_x"}]) {
            const res = await server.fetch("/v1/responses/compact", {method: "POST", json: {model: "m", input, ...extra}});
            assert.equal(res.status, 400, JSON.stringify(extra));
        }
        const tooLong = await server.fetch("/responses/compact", {method: "POST", json: {model: "m", input: history(40)}});
        assert.equal(tooLong.status, 400);
        assert.equal((await tooLong.json()).error.code, "context_length_exceeded");
    });

    it("answers any valid history with a usable window: unchanged when there is nothing to summarize", async () => {
        // OpenAI's SDK on a two-message history: nothing is older than the latest turn, so the window is the history.
        const twoMessages = [
            {role: "user" as const, content: "Tell me a story."}, {role: "assistant" as const, content: "Once upon a time."}
        ];
        const compacted = await server.client.responses.compact({model: "m", input: twoMessages});
        assert.equal(compacted.object, "response.compaction");
        assert.deepEqual(compacted.output.map((item: any) => [item.type, item.role, item.content[0].text]),
            [["message", "user", "Tell me a story."], ["message", "assistant", "Once upon a time."]]);
        assert.deepEqual([compacted.usage.input_tokens, compacted.usage.output_tokens], [0, 0], "no summary was generated");
        const next = await server.client.responses.create({
            model: "m", max_output_tokens: 8, input: [...compacted.output as any[], {role: "user", content: "Go on."}]
        });
        assertValidResponse(next);
        assert.ok(["completed", "incomplete"].includes(next.status!));

        const single = await server.fetch("/v1/responses/compact", {method: "POST", json: {model: "m", input: "just one question"}});
        assert.equal(single.status, 200);
        assert.deepEqual((await single.json()).output.map((item: any) => [item.role, item.content[0].text]),
            [["user", "just one question"]]);
    });

    it("answers with the history unchanged when the summary would not shorten it, counting the summary's usage", async () => {
        // One tiny exchange before the latest turn: its summary message alone is longer than what it replaces.
        const input = [{role: "user", content: "Hi."}, {role: "assistant", content: "Yes."}, {role: "user", content: "Go on."}];
        const res = await server.fetch("/v1/responses/compact", {method: "POST", json: {model: "m", input, max_output_tokens: 64}});
        assert.equal(res.status, 200);
        const body = await res.json();
        assert.deepEqual(body.output.map((item: any) => item.content[0].text), ["Hi.", "Yes.", "Go on."], "nothing was replaced");
        assert.ok(body.usage.input_tokens > 0, "the summary that was tried and dropped is counted");
        assert.equal(body.usage.total_tokens, body.usage.input_tokens + body.usage.output_tokens);
    });

    it("starts a new WebSocket chain from a compacted output, with and without a compaction item", async () => {
        const socket = await SocketClient.open(`${server.origin.replace(/^http/, "ws")}/v1/responses`,
            {authorization: `Bearer ${server.apiKey}`});
        try {
            for (const input of [history(6),
                [{role: "user", content: "Tell me a story."}, {role: "assistant", content: "Once upon a time."}]]) {
                const compacted = await server.client.responses.compact({model: "m", input, max_output_tokens: 32} as any);
                assert.equal(compacted.output.some((item) => item.type === "compaction"), input.length > 2,
                    "a long history compacts; two messages pass through");
                const first = await socket.turn({
                    model: "m", store: false, max_output_tokens: 8, input: [...compacted.output, {role: "user", content: "Go on."}]
                });
                assertValidSocketTurn(first);
                const firstResponse = first.at(-1)!.response;
                assert.ok(["response.completed", "response.incomplete"].includes(first.at(-1)!.type), JSON.stringify(first.at(-1)));
                const second = await socket.turn({
                    model: "m", store: false, max_output_tokens: 8, previous_response_id: firstResponse.id, input: "And then?"
                });
                assertValidSocketTurn(second);
                assert.ok(["response.completed", "response.incomplete"].includes(second.at(-1)!.type), JSON.stringify(second.at(-1)));
                assert.ok(second.at(-1)!.response.usage.input_tokens > firstResponse.usage.input_tokens,
                    "the chain continues the compacted window");
            }
        } finally {
            await socket.close();
        }
    });

    it("keeps refusing automatic compaction that cannot shorten the history (only the endpoint passes through)", async () => {
        const res = await server.fetch("/v1/responses", {method: "POST", json: {
            model: "m", input: "just one question", max_output_tokens: 4, context_management: [{type: "compaction", compact_threshold: 1}]
        }});
        assert.equal(res.status, 400);
        const body = await res.json();
        assert.equal(body.error.code, "context_length_exceeded");
        assert.match(body.error.message, /Nothing older than the latest turn/);
    });

    it("compacts a growing chain automatically with context_management, announcing it in the stream", async () => {
        const threshold = 400;
        const contextManagement = [{type: "compaction", compact_threshold: threshold}];
        let previous: string | null = null;
        let compactedAt = -1;
        const inputTokens: number[] = [];
        for (let turn = 0; turn < 10 && compactedAt < 0; turn++) {
            const res = await server.fetch("/v1/responses", {method: "POST", json: {
                model: "m", input: `Turn ${turn}: ${story}`, previous_response_id: previous, max_output_tokens: 24,
                stream: true, context_management: contextManagement
            }});
            const events = await readSse(res);
            assertValidStream(events);
            const final = events.at(-1)!.response;
            previous = final.id;
            inputTokens.push(final.usage.input_tokens);
            if (final.output[0]?.type === "compaction") {
                compactedAt = turn;
                const types = events.map((event) => event.type);
                const started = types.indexOf("response.compaction.started");
                assert.equal(types[started - 1], "response.in_progress", "the compaction events follow response.in_progress");
                assert.equal(types[started + 1], "response.compaction.completed");
                const completed = events[started + 1]!;
                assert.ok(completed.input_tokens_after < completed.input_tokens_before);
                assert.ok(completed.input_tokens_before >= threshold);
                assert.equal(events[started + 2]!.type, "response.output_item.added");
                assert.equal(events[started + 2]!.item.type, "compaction");
                // OpenAI bills compaction as part of the response: usage is the answer's plus the summary's.
                const summary = completed.usage;
                assert.ok(summary.input_tokens > 0 && summary.output_tokens > 0, "the summary generation's own usage");
                assert.equal(final.usage.input_tokens, completed.input_tokens_after + summary.input_tokens,
                    "generation ran on the compacted prompt");
                assert.ok(final.usage.output_tokens >= summary.output_tokens && final.usage.output_tokens <= summary.output_tokens + 24);
                assert.equal(final.usage.total_tokens, final.usage.input_tokens + final.usage.output_tokens);
            }
        }
        assert.ok(compactedAt > 0, `the chain compacted once it grew (inputs: ${inputTokens.join(", ")})`);
        const next = await server.client.responses.create({
            model: "m", input: "Short follow-up.", previous_response_id: previous, max_output_tokens: 4,
            context_management: contextManagement
        } as any);
        assert.notEqual(next.output[0]?.type, "compaction", "the next hop replays the summary without compacting again");
        assert.ok(next.usage!.input_tokens < threshold);
    });
});
