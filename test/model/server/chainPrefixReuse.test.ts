import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {syntheticModel} from "../../helpers/syntheticModel.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

/**
 * Issue 11, item 4 of the benchmark: along a `previous_response_id` chain each turn evaluates only its new tokens.
 * The full-size synthetic model writes noise, whose tokens are almost never the canonical tokenization of their own
 * text: re-tokenizing the previous answer differed from what the sequence held after its first few tokens, and the
 * next turn evaluated the whole answer again (52 of 80 tokens reused, turn 10 took 1.7 × turn 1).
 */
describe("a chain reuses the sequence that holds the previous answer's own tokens", () => {
    let server: TestServer;
    before(async () => {
        server = await startTestServer({model: await syntheticModel(), contextSize: 4096, parallel: 2});
    });
    after(() => server?.close());

    it("each turn's cached tokens cover the previous prompt and all but the answer's last sampled token", async () => {
        let previous: {id: string, input: number, output: number} | undefined;
        for (let turn = 1; turn <= 3; turn++) {
            const response = await server.client.responses.create({
                model: "m",
                input: turn === 1 ? "Chain: the little dog ran to the park and found a red ball." : `What happened next, part ${turn}?`,
                max_output_tokens: 24,
                temperature: 0,
                ...(previous != null ? {previous_response_id: previous.id} : {})
            });
            const usage = response.usage!;
            if (previous != null) {
                // The answer's last token is sampled, never evaluated: the sequence holds the rest.
                assert.ok(usage.input_tokens_details.cached_tokens >= previous.input + previous.output - 1,
                    `turn ${turn}: ${usage.input_tokens_details.cached_tokens} of ${usage.input_tokens} cached, the previous turn `
                        + `held ${previous.input} + ${previous.output}`);
            }
            previous = {id: response.id, input: usage.input_tokens, output: usage.output_tokens};
        }
    });

    it("so does a client that sends the whole history again, as Codex does", async () => {
        const question = "Chain again: the red ball rolled under the big tree.";
        const first = await server.client.responses.create({
            model: "m", input: question, max_output_tokens: 24, temperature: 0, store: false
        });
        const second = await server.client.responses.create({
            model: "m",
            input: [
                {role: "user", content: question},
                {role: "assistant", content: first.output_text},
                {role: "user", content: "What happened next?"}
            ],
            max_output_tokens: 4,
            temperature: 0,
            store: false
        });
        const held = first.usage!.input_tokens + first.usage!.output_tokens - 1;
        assert.ok(second.usage!.input_tokens_details.cached_tokens >= held,
            `${second.usage!.input_tokens_details.cached_tokens} of ${second.usage!.input_tokens} cached, the first request held ${held}`);
    });
});
