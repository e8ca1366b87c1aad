import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {defaultConfig} from "../../../src/host/config.js";
import {assertValidResponse, assertValidStream} from "../../helpers/conformance.js";
import type {SseEvent} from "../../helpers/background.js";
import {buildTimeoutMs, startLlamaServer, type LlamaServerProcess} from "../../helpers/llamaServer.js";
import {models} from "../../helpers/paths.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

/**
 * `reasoning.effort` and reasoning deltas through a real llama-server on stories260K-think.gguf, whose template opens
 * `<think>` in its generation prompt: llama-server streams the model's text as `reasoning_content` until the thought
 * closes, which this model can only do when llama-server forces it (its reasoning budget).
 */
describe("upstream engine: reasoning over a real llama-server (think model)", () => {
    let upstream: LlamaServerProcess;
    let server: TestServer;
    before(async () => {
        upstream = await startLlamaServer({model: models.think, slots: 1, ignoreEos: true});
        server = await startTestServer({
            engine: "upstream", upstream: {...defaultConfig().upstream, urls: [upstream.url], timeoutSeconds: 60}
        });
    }, {timeout: buildTimeoutMs});
    after(async () => {
        await server?.close();
        await upstream?.stop();
    });

    const reasoningText = (response: {output: Array<{type: string}>}) => response.output
        .flatMap((item) => (item.type === "reasoning" ? (item as {content?: Array<{text: string}>}).content ?? [] : []))
        .map((part) => part.text).join("");

    it("effort low: the thought ends at this server's budget for that effort (capped at half of max_output_tokens), then the "
        + "answer follows", async () => {
        const response = await server.client.responses.create({
            model: "m", input: "Hi", max_output_tokens: 40, temperature: 0, reasoning: {effort: "low"}
        });
        assertValidResponse(response);
        assert.ok(reasoningText(response).length > 0, "a reasoning item from reasoning_content");
        assert.ok(response.output_text.length > 0, `an answer after the thought: ${JSON.stringify(response.output)}`);
        const reasoningTokens = response.usage!.output_tokens_details.reasoning_tokens;
        assert.ok(reasoningTokens > 0 && reasoningTokens <= 20, `reasoning tokens ${reasoningTokens} within low's budget capped at 40 / 2`);
    });

    it("effort none: thinking is off (no reasoning item, the answer from the first token)", async () => {
        const response = await server.client.responses.create({
            model: "m", input: "Hi", max_output_tokens: 12, temperature: 0, reasoning: {effort: "none"}
        });
        assertValidResponse(response);
        assert.equal(response.output.some((item) => item.type === "reasoning"), false);
        assert.ok(response.output_text.length > 0);
    });

    it("streams reasoning_content deltas as reasoning_text events, then the answer's text deltas, in a valid stream", async () => {
        const stream = await server.client.responses.create({
            model: "m", input: "Hi", max_output_tokens: 24, temperature: 0, reasoning: {effort: "minimal"}, stream: true
        });
        const events: SseEvent[] = [];
        for await (const event of stream)
            events.push(event as unknown as SseEvent);
        assertValidStream(events);
        const types = events.map((event) => event.type);
        const firstReasoning = types.indexOf("response.reasoning_text.delta");
        const firstText = types.indexOf("response.output_text.delta");
        assert.ok(firstReasoning >= 0 && firstText > firstReasoning, types.join(" "));
        const done = events.find((event) => event.type === "response.reasoning_text.done")!;
        assert.equal(events.filter((event) => event.type === "response.reasoning_text.delta").map((event) => event.delta).join(""),
            done.text);
    });
});
