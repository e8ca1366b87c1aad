import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {useTestServer, type TestServer} from "../../helpers/testServer.js";

const contextSize = 2048;
const anthropicHeaders = {"anthropic-version": "2023-06-01"};
/** Claude Code compacts the conversation and retries on exactly this message (its 2.1.328 binary's pattern). */
const anthropicOverflow = /^prompt is too long: (\d+) tokens > (\d+) maximum$/;

type ErrorBody = {type: string, error: {type: string, message: string}};

async function post(server: TestServer, path: string, json: object): Promise<{status: number, body: unknown}> {
    const response = await server.fetch(path, {method: "POST", headers: anthropicHeaders, json});
    return {status: response.status, body: await response.json()};
}

const story = "Once upon a time, there was a little girl named Lily. She loved to play outside in the park with her friends. ";
const overContext = story.repeat(70);
const request = (text: string, stream = false) => ({model: "m", max_tokens: 16, stream, messages: [{role: "user", content: text}]});

describe("a Messages prompt longer than the context is Anthropic's 'prompt is too long' (real engine, stories260K)", () => {
    const server = useTestServer({contextSize});

    it("a rendered prompt over the context: 400 invalid_request_error with its counted tokens and the most that fit, "
        + "in one body and before a stream opens", async () => {
        const counted = await post(server, "/v1/messages/count_tokens", request(overContext));
        const tokens = (counted.body as {input_tokens: number}).input_tokens;
        assert.ok(tokens >= contextSize, `the prompt is ${tokens} tokens`);
        for (const stream of [false, true]) {
            const {status, body} = await post(server, "/v1/messages", request(overContext, stream));
            assert.equal(status, 400);
            const {type, error} = body as ErrorBody;
            assert.deepEqual([type, error.type], ["error", "invalid_request_error"]);
            assert.equal(error.message, `prompt is too long: ${tokens} tokens > ${contextSize - 1} maximum`);
        }
    });

    it("an input refused before rendering (its text alone cannot fit) reads the same, with its least token count", async () => {
        const {status, body} = await post(server, "/v1/messages", request(story.repeat(2000)));
        assert.equal(status, 400);
        const match = anthropicOverflow.exec((body as ErrorBody).error.message);
        assert.ok(match != null, (body as ErrorBody).error.message);
        assert.ok(Number(match[1]) > Number(match[2]));
        assert.equal(Number(match[2]), contextSize - 1);
    });

    it("Responses keeps its own wording and code for the same prompt", async () => {
        const response = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: overContext}});
        assert.equal(response.status, 400);
        const {error} = await response.json() as {error: {code: string, message: string}};
        assert.equal(error.code, "context_length_exceeded");
        assert.match(error.message, /^The input is \d+ tokens, which leaves no room for output/);
    });
});
