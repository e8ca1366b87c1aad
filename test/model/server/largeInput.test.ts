import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {clientInAnotherProcess} from "../../helpers/clientInAnotherProcess.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

/**
 * Issue 12 item 7: a large input never holds other requests. An input that cannot fit is refused from its length
 * before it is rendered or tokenized; one that may fit is tokenized off the event loop. Measured as the longest
 * time a `GET /v1/models` (polled every 10 ms) waits while the large request runs.
 */
describe("large inputs and the other requests (real server, stories260K)", () => {
    let server: TestServer;
    before(async () => {
        server = await startTestServer({contextSize: 262_144, parallel: 1});
    });
    after(() => server?.close());

    /** Runs `work` while polling `GET /v1/models`; returns its result and the slowest poll in ms. */
    async function whilePolling<T>(work: () => Promise<T>): Promise<{result: T, slowestMs: number, polls: number}> {
        let done = false;
        let slowestMs = 0;
        let polls = 0;
        const poller = (async () => {
            while (!done) {
                const started = performance.now();
                const response = await server.fetch("/v1/models");
                await response.arrayBuffer();
                assert.equal(response.status, 200);
                slowestMs = Math.max(slowestMs, performance.now() - started);
                polls++;
                await new Promise((resolve) => setTimeout(resolve, 10));
            }
        })();
        await new Promise((resolve) => setTimeout(resolve, 50));
        try {
            return {result: await work(), slowestMs, polls};
        } finally {
            done = true;
            await poller;
        }
    }

    // The target is under 50 ms (issue 12; measured figures are printed). The assertions allow for a loaded machine
    // while still catching what they guard against: before, the event loop was held for 8–17 s. The floor is the one
    // JSON.parse of a 15 MB body (~55 ms on an idle 2-core machine); CI, running suites beside it, measured 155 ms.
    const slowestAllowedMs = 300;

    it("refuses a 15 MB input at once with context_length_exceeded, without holding /v1/models", async (t) => {
        const input = "Once upon a time, there was a little girl named Lily. ".repeat(280_000);
        const client = await clientInAnotherProcess(`${server.origin}/v1/responses`, {authorization: `Bearer ${server.apiKey}`},
            JSON.stringify({model: "local", input, max_output_tokens: 4}));
        const {result, slowestMs} = await whilePolling(() => client.post());
        assert.equal(result.status, 400);
        assert.equal(result.json.error.code, "context_length_exceeded");
        assert.match(result.json.error.message, /at least \d+ tokens/);
        assert.ok(result.ms < 3000, `refused in ${result.ms.toFixed(0)} ms`);
        t.diagnostic(`refused in ${result.ms.toFixed(0)} ms; GET /v1/models waited at most ${slowestMs.toFixed(1)} ms meanwhile`);
        assert.ok(slowestMs < slowestAllowedMs, `GET /v1/models waited at most ${slowestMs.toFixed(0)} ms`);
    });

    it("counts an 800k-character input off the event loop, exactly, while /v1/models stays fast", async (t) => {
        // About 0.8 s of tokenizing: on the event loop, every other request would wait that long.
        const input = "Tom had a red ball and a big dog. ".repeat(24_000);
        const expected = await server.host.engine.countPromptTokens([{role: "user", text: input}]);
        // From another process, as above: the client's serialising and sending are not the server's time.
        const client = await clientInAnotherProcess(`${server.origin}/v1/responses/input_tokens`,
            {authorization: `Bearer ${server.apiKey}`}, JSON.stringify({model: "local", input: `${input} `}));
        const {result: posted, slowestMs, polls} = await whilePolling(() => client.post());
        const result = {status: posted.status, body: posted.json as {input_tokens: number}};
        assert.equal(result.status, 200);
        assert.ok(result.body.input_tokens >= expected,
            `${result.body.input_tokens} tokens counted (${expected} for the text without its last space)`);
        assert.ok(polls > 3, `polled ${polls} times`);
        t.diagnostic(
            `${result.body.input_tokens} tokens counted; GET /v1/models waited at most ${slowestMs.toFixed(1)} ms over ${polls} polls`
        );
        assert.ok(slowestMs < slowestAllowedMs, `GET /v1/models waited at most ${slowestMs.toFixed(1)} ms`);
    });
});
