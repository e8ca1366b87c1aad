import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {assertValidResponse, assertValidSocketTurn} from "../../helpers/conformance.js";
import {SocketClient, type SocketMessage} from "../../helpers/socketClient.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

const weather = {
    type: "function",
    name: "get_weather",
    description: "Weather for a city",
    // An enum keeps the forced call short: the tiny model may not close a free string within the output limit.
    parameters: {
        type: "object", properties: {city: {type: "string", enum: ["Paris", "Rome"]}}, required: ["city"], additionalProperties: false
    }
};

function completed(messages: SocketMessage[]): Record<string, any> {
    assertValidSocketTurn(messages);
    const last = messages.at(-1)!;
    assert.ok(last.type === "response.completed" || last.type === "response.incomplete", `turn ended with ${JSON.stringify(last)}`);
    return last.response;
}

function socketError(messages: SocketMessage[]): {status: number, error: {code: string, message: string, param: string | null}} {
    assertValidSocketTurn(messages);
    assert.equal(messages.length, 1);
    assert.equal(messages[0]!.type, "error");
    return messages[0] as any;
}

describe("Responses WebSocket mode (ws client, real engine)", () => {
    let server: TestServer;
    let wsUrl: string;
    const open = (path = "/v1/responses", headers: Record<string, string> = {authorization: `Bearer ${server.apiKey}`}) =>
        SocketClient.open(`${wsUrl}${path}`, headers);
    /** Runs `use` on a new socket (see `open`) and closes it whatever happens. */
    const withSocket = async <T>(use: (socket: SocketClient) => Promise<T>, ...target: Parameters<typeof open>): Promise<T> => {
        const socket = await open(...target);
        try {
            return await use(socket);
        } finally {
            await socket.close();
        }
    };

    before(async () => {
        server = await startTestServer({allowedOrigins: ["http://allowed.example"]});
        wsUrl = server.origin.replace(/^http/, "ws");
    });
    after(() => server.close());

    it("runs several sequential turns on one socket with the same events as SSE", async () => {
        await withSocket(async (socket) => {
            for (const input of ["Once upon a time", "The cat sat"]) {
                const messages = await socket.turn({model: "m", input, max_output_tokens: 12});
                const response = completed(messages);
                assert.deepEqual(messages.slice(0, 2).map((message) => message.type), ["response.created", "response.in_progress"]);
                assert.deepEqual(messages.map((message) => message.sequence_number), messages.map((_message, index) => index));
                const deltas = messages.filter((message) => message.type === "response.output_text.delta").map((message) => message.delta)
                    .join("");
                assert.equal(response.output[0].content[0].text, deltas);
                assert.ok(response.usage.output_tokens > 0 && response.usage.output_tokens <= 12);
            }
        });
    });

    it("serves the alias path and x-api-key auth", async () => {
        await withSocket(async (socket) => {
            completed(await socket.turn({model: "m", input: "Hi", max_output_tokens: 4}));
        }, "/responses", {"x-api-key": server.apiKey});
    });

    it("answers back-to-back messages in order, one turn at a time", async () => {
        await withSocket(async (socket) => {
            socket.send({type: "response.create", model: "m", input: "One", max_output_tokens: 4, metadata: {turn: "1"}});
            socket.send({type: "response.create", model: "m", input: "Two", max_output_tokens: 4, metadata: {turn: "2"}});
            const first = completed(await socket.readTurn());
            const second = completed(await socket.readTurn());
            assert.deepEqual([first.metadata.turn, second.metadata.turn], ["1", "2"]);
        });
    });

    it("continues a store:false response on the same socket; a new socket cannot", async () => {
        const firstId = await withSocket(async (socket) => {
            const first = completed(await socket.turn({model: "m", input: "Tell me a story.", store: false, max_output_tokens: 8}));
            assert.equal(first.store, false);
            const second = completed(
                await socket.turn({model: "m", input: "And then?", store: false, previous_response_id: first.id, max_output_tokens: 8})
            );
            assert.equal(second.previous_response_id, first.id);
            // The continuation rendered the inherited turns: it reads more prompt than the first turn did.
            assert.ok(second.usage.input_tokens > first.usage.input_tokens + first.usage.output_tokens,
                `${second.usage.input_tokens} input tokens do not include the first turn (${first.usage.input_tokens} `
                    + `+ ${first.usage.output_tokens})`);
            // Not stored: HTTP does not know it.
            assert.equal((await server.fetch(`/v1/responses/${first.id}`)).status, 404);
            return first.id as string;
        });

        await withSocket(async (fresh) => {
            const refused = socketError(await fresh.turn({model: "m", input: "More", previous_response_id: firstId, max_output_tokens: 4}));
            assert.equal(refused.error.code, "previous_response_not_found");
            assert.equal(refused.error.param, "previous_response_id");
        });
    });

    it("continues a stored response created over HTTP, and stores its own turns for HTTP", async () => {
        const stored = await server.client.responses.create({model: "m", input: "A dog", max_output_tokens: 6});
        await withSocket(async (socket) => {
            const response = completed(
                await socket.turn({model: "m", input: "ran", previous_response_id: stored.id, max_output_tokens: 6})
            );
            const retrieved = await server.client.responses.retrieve(response.id);
            assertValidResponse(retrieved);
            assert.equal(retrieved.previous_response_id, stored.id);
            assert.equal(retrieved.status, response.status);
        });
    });

    it("refuses unknown previous ids with previous_response_not_found and keeps serving", async () => {
        await withSocket(async (socket) => {
            const refused = socketError(await socket.turn({model: "m", input: "x", previous_response_id: "resp_unknown"}));
            assert.equal(refused.status, 404);
            assert.equal(refused.error.code, "previous_response_not_found");
            completed(await socket.turn({model: "m", input: "Still here", max_output_tokens: 4}));
        });
    });

    it("evicts the previous response of a failed continuation (unknown call_id)", async () => {
        await withSocket(async (socket) => {
            const first = completed(
                await socket.turn({
                    model: "m", input: "Weather in Paris?", store: false, tools: [weather], tool_choice: "required", max_output_tokens: 48
                })
            );
            const call = first.output.find((item: any) => item.type === "function_call");
            assert.ok(call != null, `no forced call in ${JSON.stringify(first.output)}`);

            const broken = socketError(await socket.turn({
                model: "m", store: false, previous_response_id: first.id, tools: [weather],
                input: [{type: "function_call_output", call_id: "call_nope", output: "sunny"}]
            }));
            // The inherited call has no output, and the sent output no call: either is named.
            assert.equal(broken.status, 400);
            assert.match(broken.error.code, /^missing_tool_(output|call)$/);

            // The correct continuation is now refused as well: the client must resend the full history.
            const evicted = socketError(await socket.turn({
                model: "m", store: false, previous_response_id: first.id, tools: [weather],
                input: [{type: "function_call_output", call_id: call.call_id, output: "sunny"}]
            }));
            assert.equal(evicted.error.code, "previous_response_not_found");

            const resent = completed(await socket.turn({
                model: "m", store: false, tools: [weather], max_output_tokens: 8,
                input: [
                    {role: "user", content: "Weather in Paris?"}, call,
                    {type: "function_call_output", call_id: call.call_id, output: "sunny"}
                ]
            }));
            assert.ok(resent.usage.input_tokens > 0);
        });
    });

    it("continues a store:false tool call with only its output on the same socket", async () => {
        await withSocket(async (socket) => {
            const first = completed(
                await socket.turn({
                    model: "m", input: "Weather in Rome?", store: false, tools: [weather],
                    tool_choice: {type: "function", name: "get_weather"}, max_output_tokens: 48
                })
            );
            const call = first.output.find((item: any) => item.type === "function_call");
            assert.ok(call != null);
            assert.equal(call.name, "get_weather");
            assert.equal(typeof JSON.parse(call.arguments).city, "string");
            const second = completed(await socket.turn({
                model: "m", store: false, previous_response_id: first.id, tools: [weather], max_output_tokens: 8,
                input: [{type: "function_call_output", call_id: call.call_id, output: "{\"temperature\": 21}"}]
            }));
            assert.equal(second.previous_response_id, first.id);
        });
    });

    it("refuses malformed messages and HTTP-only fields with an error message, keeping the socket", async () => {
        await withSocket(async (socket) => {
            socket.send("not json");
            assert.equal(socketError(await socket.readTurn()).error.code, "invalid_json");
            socket.send({type: "response.cancel"});
            assert.equal(socketError(await socket.readTurn()).error.code, "unsupported_message_type");
            assert.equal(socketError(await socket.turn({model: "m", input: "x", background: true})).error.param, "background");
            assert.equal(socketError(await socket.turn({model: "m", input: "x", stream: false})).error.param, "stream");
            assert.equal(socketError(await socket.turn({model: "m", input: "x", temperature: 9})).error.param, "temperature");
            // `stream: true` is what the socket does anyway: tolerated.
            completed(await socket.turn({model: "m", input: "ok", stream: true, max_output_tokens: 4}));
        });
    });

    it("applies the HTTP checks to the handshake: key, Host, Origin, path", async () => {
        const refused = async (path: string, headers: Record<string, string>) => {
            const error = await open(path, headers).then(() => assert.fail("handshake accepted"), (caught) => caught);
            return {status: error.status as number, code: error.body?.error?.code as string};
        };
        assert.deepEqual(await refused("/v1/responses", {}), {status: 401, code: "invalid_api_key"});
        assert.deepEqual(await refused("/v1/responses", {authorization: "Bearer wrong"}), {status: 401, code: "invalid_api_key"});
        assert.deepEqual(await refused("/v1/responses", {authorization: `Bearer ${server.apiKey}`, host: "evil.example"}),
            {status: 403, code: "invalid_host"});
        assert.deepEqual(await refused("/v1/responses", {authorization: `Bearer ${server.apiKey}`, host: "[::1].evil"}),
            {status: 403, code: "invalid_host"});
        assert.deepEqual(await refused("/v1/responses", {authorization: `Bearer ${server.apiKey}`, origin: "http://evil.example"}), {status: 403, code: "origin_not_allowed"});
        assert.deepEqual(await refused("/v1/models", {authorization: `Bearer ${server.apiKey}`}), {status: 404, code: "unknown_route"});

        const allowed = await open("/v1/responses", {authorization: `Bearer ${server.apiKey}`, origin: "http://allowed.example"});
        await allowed.close();
    });

    it("closes its sockets when the server stops", async () => {
        const other = await startTestServer();
        const socket = await SocketClient.open(`${other.origin.replace(/^http/, "ws")}/v1/responses`,
            {authorization: `Bearer ${other.apiKey}`});
        const closed = new Promise<number>((resolve) => socket.ws.once("close", (code) => resolve(code)));
        const started = Date.now();
        await other.host.stop();
        assert.equal(await closed, 1001);
        // The HTTP server's grace period is 10 s: an open socket that was not closed would hold shutdown that long.
        assert.ok(Date.now() - started < 9000, "shutdown waited for the idle socket");
        await other.close();
    });
});
