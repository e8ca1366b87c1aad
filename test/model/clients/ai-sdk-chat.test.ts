import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {createOpenAICompatible} from "@ai-sdk/openai-compatible";
import {generateText, stepCountIs, streamText} from "ai";
import {readFullStream} from "../../helpers/aiSdkStream.js";
import {aiSdkWeatherTool} from "../../helpers/weatherTools.js";
import {skipUpstream, startClientHarness, type ClientHarness} from "../../helpers/clientHarness.js";

const noForcedCalls = "llama-server does not force a tool call on the tiny models (docs/upstream.md)";

/**
 * The Vercel AI SDK's Chat Completions provider (`@ai-sdk/openai-compatible`, what most "OpenAI-compatible" setups use)
 * against `POST /v1/chat/completions` on the real server.
 */
describe("Vercel AI SDK (ai + @ai-sdk/openai-compatible, Chat Completions, real engine)", () => {
    let harness: ClientHarness;
    let provider: ReturnType<typeof createOpenAICompatible>;
    before(async () => {
        harness = await startClientHarness();
        provider = createOpenAICompatible({
            name: "local", baseURL: harness.url, apiKey: harness.apiKey, includeUsage: true, supportsStructuredOutputs: true
        });
    });
    after(() => harness.close());

    const weather = aiSdkWeatherTool;

    it("generateText", async () => {
        const result = await generateText({model: provider.chatModel("local-model"), prompt: "Tell me a story.", maxOutputTokens: 16});
        assert.ok(result.text.length > 0);
        assert.ok(result.usage.inputTokens! > 0 && result.usage.outputTokens! <= 16);
        assert.ok(["stop", "length"].includes(result.finishReason));
    });

    it("streamText with usage", async () => {
        const result = streamText({model: provider.chatModel("local-model"), prompt: "Once upon a time", maxOutputTokens: 16});
        const {text, errors} = await readFullStream(result);
        assert.deepEqual(errors, []);
        assert.ok(text.length > 0);
        assert.equal(text, await result.text);
        const usage = await result.usage;
        assert.ok(usage.outputTokens! > 0 && usage.outputTokens! <= 16);
    });

    it("generateText: a forced tool call, run, and the answer after its result", {skip: skipUpstream(noForcedCalls)}, async () => {
        const calls: string[] = [];
        const result = await generateText({
            model: provider.chatModel("local-model"),
            prompt: "What is the weather in Paris?",
            tools: {get_weather: weather(calls)},
            toolChoice: "required",
            prepareStep: ({stepNumber}) => (stepNumber > 0 ? {toolChoice: "none"} : undefined),
            stopWhen: stepCountIs(2),
            maxOutputTokens: 48
        });
        assert.equal(calls.length, 1);
        assert.ok(["Paris", "Oslo"].includes(calls[0]!));
        assert.equal(result.steps.length, 2);
        assert.equal(result.steps[0]!.finishReason, "tool-calls");
    });

    it("streamText: a forced tool call streamed, run, and the answer after its result", {skip: skipUpstream(noForcedCalls)}, async () => {
        const calls: string[] = [];
        const result = streamText({
            model: provider.chatModel("local-model"),
            prompt: "What is the weather in Oslo?",
            tools: {get_weather: weather(calls)},
            toolChoice: {type: "tool", toolName: "get_weather"},
            prepareStep: ({stepNumber}) => (stepNumber > 0 ? {toolChoice: "none"} : undefined),
            stopWhen: stepCountIs(2),
            maxOutputTokens: 48
        });
        const {errors} = await readFullStream(result);
        assert.deepEqual(errors, []);
        assert.equal(calls.length, 1);
        const steps = await result.steps;
        assert.equal(steps.length, 2);
        assert.equal(steps[0]!.toolCalls[0]!.toolName, "get_weather");
    });
});
