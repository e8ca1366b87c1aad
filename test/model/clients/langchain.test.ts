import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {AIMessageChunk, HumanMessage, ToolMessage} from "@langchain/core/messages";
import {ChatOpenAI} from "@langchain/openai";
import {skipUpstream, startClientHarness, type ClientHarness} from "../../helpers/clientHarness.js";

const weatherTool = {
    type: "function" as const,
    function: {
        name: "get_weather",
        description: "Get the current weather for a city",
        // An enum keeps the forced call short: the tiny model may not close a free string within the output limit.
        parameters: {
            type: "object", properties: {city: {type: "string", enum: ["Paris", "Oslo", "Rome"]}}, required: ["city"],
            additionalProperties: false
        }
    }
};

/**
 * LangChain's `ChatOpenAI` (@langchain/openai) without `useResponsesApi`: what LangChain apps and agents built on it
 * send to an OpenAI-compatible server, POST /v1/chat/completions.
 */
describe("LangChain ChatOpenAI over Chat Completions (real engine)", () => {
    let harness: ClientHarness;
    before(async () => {
        harness = await startClientHarness({parallel: 2});
    });
    after(() => harness?.close());
    const model = (options: {maxTokens: number}) => new ChatOpenAI({
        model: "local-model", apiKey: harness.apiKey, configuration: {baseURL: harness.url}, maxRetries: 0, temperature: 0, ...options
    });

    it("invoke answers with text and token usage", async () => {
        const answer = await model({maxTokens: 16}).invoke([new HumanMessage("Once upon a time")]);
        assert.equal(typeof answer.content, "string");
        assert.match(answer.content as string, /\S/);
        assert.ok(answer.usage_metadata!.output_tokens > 0 && answer.usage_metadata!.output_tokens <= 16,
            JSON.stringify(answer.usage_metadata));
        assert.ok(answer.usage_metadata!.input_tokens > 0);
        const paths = harness.proxy.exchanges.map((exchange) => exchange.path);
        assert.ok(paths.includes("/v1/chat/completions"), paths.join(", "));
    });

    it("stream yields chunks that add up to the same answer as invoke", async () => {
        const question = [new HumanMessage("The dog ran")];
        const whole = await model({maxTokens: 12}).invoke(question);
        let streamed: AIMessageChunk | undefined;
        let chunks = 0;
        for await (const chunk of await model({maxTokens: 12}).stream(question)) {
            streamed = streamed == null ? chunk : streamed.concat(chunk);
            chunks++;
        }
        assert.ok(chunks >= 2, `${chunks} chunks`);
        assert.equal(streamed!.content, whole.content);
    });

    it("a tool bound with tool_choice forces the call, and its ToolMessage's turn answers", {skip: skipUpstream("llama-server does not "
        + "force a tool call on the tiny models (docs/upstream.md)")}, async () => {
        const bound = model({maxTokens: 64}).bindTools([weatherTool], {tool_choice: "get_weather"});
        const question = new HumanMessage("What is the weather in Paris?");
        const call = await bound.invoke([question]);
        assert.equal(call.tool_calls?.length, 1, JSON.stringify(call));
        const [toolCall] = call.tool_calls!;
        assert.equal(toolCall!.name, "get_weather");
        assert.ok(["Paris", "Oslo", "Rome"].includes(toolCall!.args.city), JSON.stringify(toolCall!.args));
        const answer = await model({maxTokens: 16}).bindTools([weatherTool]).invoke([
            question, call, new ToolMessage({tool_call_id: toolCall!.id!, content: "sunny"})
        ]);
        assert.equal(typeof answer.content, "string");
        assert.ok(answer.usage_metadata!.output_tokens > 0);
    });
});
