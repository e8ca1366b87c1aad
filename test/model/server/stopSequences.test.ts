import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {assertValidResponse} from "../../helpers/conformance.js";
import {startTestServer, useTestServer} from "../../helpers/testServer.js";
import {models} from "../../helpers/paths.js";

/** `--stop`: for models that never end a turn by themselves (the tiny test model at long prompts). */
describe("operator stop sequences", () => {
    const server = useTestServer({model: models.qwen, stopSequences: ["."]});

    it("end a plain-text answer as a normal stop: status completed, text before the stop sequence", async () => {
        const response = await server.client.responses.create({
            model: "m", input: "Tell me a long story about a dog.", max_output_tokens: 300, temperature: 0
        });
        assertValidResponse(response);
        assert.equal(response.status, "completed");
        assert.ok(response.output_text.length > 0);
        assert.ok(!response.output_text.includes("."), response.output_text);
        assert.ok(response.usage!.output_tokens < 300);
    });

    it("stream the text before the stop sequence and nothing of it", async () => {
        const events = await (await server.fetch("/v1/responses",
            {method: "POST", json: {model: "m", input: "Tell me a story.", max_output_tokens: 300, temperature: 0, stream: true}})).text();
        const deltas = [...events.matchAll(/"delta":"((?:[^"\\]|\\.)*)"/g)].map((match) => JSON.parse(`"${match[1]}"`)).join("");
        assert.ok(!deltas.includes("."), deltas);
        assert.match(events, /event: response\.completed/);
    });

    it("do not cut a forced tool call whose arguments contain the stop text", async () => {
        const response = await server.client.responses.create({
            model: "m", input: "Call the tool.", max_output_tokens: 200, temperature: 0,
            tools: [{type: "function", name: "set_version", description: "Sets a version", strict: true,
                parameters: {
                    type: "object", properties: {version: {type: "string", enum: ["1.2.3", "4.5.6"]}}, required: ["version"],
                    additionalProperties: false
                }}],
            tool_choice: {type: "function", name: "set_version"}, parallel_tool_calls: false
        });
        assertValidResponse(response);
        const call = response.output.find((item) => item.type === "function_call");
        assert.ok(call != null && call.type === "function_call", JSON.stringify(response.output));
        assert.match(JSON.parse(call.arguments).version, /^\d\.\d\.\d$/);
    });
});

describe("operator stop sequences on a thinking model", () => {
    it("are not matched inside the thought: the answer after it still ends at the stop", async () => {
        const server = await startTestServer({model: models.think, stopSequences: ["."]});
        try {
            const response = await server.client.responses.create({
                model: "m", input: "Tell me a story.", max_output_tokens: 300, temperature: 0, reasoning: {effort: "low"}
            });
            assertValidResponse(response);
            assert.equal(response.status, "completed");
            const reasoning = response.output.find((item) => item.type === "reasoning");
            assert.ok(reasoning != null, "the thought is kept");
            assert.ok(response.output_text.length > 0, "an answer follows the thought");
            assert.ok(!response.output_text.includes("."));
        } finally {
            await server.close();
        }
    });
});
