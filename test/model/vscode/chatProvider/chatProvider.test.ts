import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import type {GenerationSummary, PromptProgress} from "../../../../src/engine/types.js";
import {HostController} from "../../../../src/vscode/controller/HostController.js";
import {languageModelApiOf} from "../../../../src/vscode/chatProvider/languageModelApi.js";
import type {LanguageModelChatInformation} from "../../../../src/vscode/chatProvider/lmApi.js";
import {LocalChatModelProvider} from "../../../../src/vscode/chatProvider/LocalChatModelProvider.js";
import {readSettings} from "../../../../src/vscode/settings/extensionSettings.js";
import {
    cancellationSource, fakeVscodeModule, LanguageModelError, TextPart, ToolCallPart, ToolResultPart
} from "../../../helpers/fakeLanguageModelApi.js";
import {models} from "../../../helpers/paths.js";

const user = 1;
const assistant = 2;
const required = 2;

const weather = {
    name: "get_weather",
    description: "The weather of a city",
    inputSchema: {type: "object", properties: {city: {type: "string", maxLength: 12}}, required: ["city"], additionalProperties: false}
};

/**
 * The editor's chat provider on the real engine (stories260K), without an editor: the provider the extension registers,
 * its `vscode` classes stood in for (`fakeVscodeModule`), driven as `vscode.lm` drives it, on a controller built as the
 * extension builds one. The request path is the real one: the host's Responses service, engine, queue and prompt cache.
 */
describe("VS Code chat provider (real engine)", () => {
    let promptProgress: ((progress: PromptProgress) => void) | null = null;
    const settingsRead: Record<string, unknown> = {threads: 1, parallel: 1, contextSize: 2048, "server.port": 0};
    const {settings} = readSettings((key) => settingsRead[key]);
    const controller = new HostController(settings, {
        apiKey: async () => "sk-test", resolveModelPath: (raw) => raw, log: () => undefined, onRequest: () => undefined,
        onPromptProgress: (_id, progress) => promptProgress?.(progress)
    });
    const api = languageModelApiOf(fakeVscodeModule().module)!;
    const provider = new LocalChatModelProvider(api, controller);
    let changes = 0;
    provider.onDidChangeLanguageModelChatInformation!(() => changes++);
    const summaries: GenerationSummary[] = [];
    let model: LanguageModelChatInformation;

    type SendOptions = {tools?: typeof weather[], toolMode?: number, modelOptions?: Record<string, unknown>};
    const send = async (messages: {role: number, content: unknown[]}[], options: SendOptions = {}) => {
        const parts: unknown[] = [];
        const {token} = cancellationSource();
        await provider.provideLanguageModelChatResponse(model, messages.map((message) => ({...message, name: undefined})),
            {toolMode: 1, ...options}, {report: (part) => parts.push(part)}, token);
        return parts;
    };

    before(async () => {
        await controller.initialize();
        controller.host.engine.onGeneration((summary) => summaries.push(summary));
    });
    after(async () => {
        provider.dispose();
        await controller.dispose();
    });

    it("lists nothing and answers 'no model loaded: run Load Model…' before a model is loaded", async () => {
        assert.deepEqual(provider.provideLanguageModelChatInformation(), []);
        const {token} = cancellationSource();
        const unloaded = {id: "stories260K", name: "", family: "", version: "", maxInputTokens: 1, maxOutputTokens: 1, capabilities: {}};
        const hi = [{role: user, content: [new TextPart("Hi")], name: undefined}];
        await assert.rejects(provider.provideLanguageModelChatResponse(unloaded, hi, {toolMode: 1}, {report: () => undefined}, token),
            (error: unknown) => error instanceof LanguageModelError && error.code === "NotFound"
                && error.message === "Local Responses: no model loaded: run Local Responses: Load Model…");
    });

    it("lists the loaded model with its token limits, and says the list changed", async () => {
        await controller.loadModel(models.chatml);
        assert.equal(changes, 1);
        const list = provider.provideLanguageModelChatInformation();
        assert.equal(list.length, 1);
        model = list[0]!;
        const {id, family, maxInputTokens, maxOutputTokens, capabilities} = model;
        assert.deepEqual({id, family, maxInputTokens, maxOutputTokens, capabilities},
            {
                id: "stories260K", family: "llama", maxInputTokens: 1536, maxOutputTokens: 512,
                capabilities: {toolCalling: true, imageInput: false}
            });
    });

    it("streams text as LanguageModelTextParts, delta by delta", async () => {
        const story = [{role: user, content: [new TextPart("Tell me a story about a dog.")]}];
        const parts = await send(story, {modelOptions: {maxTokens: 12, temperature: 0}});
        assert.ok(parts.length >= 2, `${parts.length} parts`);
        assert.ok(parts.every((part) => part instanceof TextPart));
        assert.ok((parts as TextPart[]).map((part) => part.value).join("").length > 0);
        assert.equal(summaries.at(-1)!.usage.outputTokens, 12, "maxTokens reached the engine");
        // Counted with every request's, under its own protocol (the status bar and inspector read the engine's summaries).
        const metrics = await controller.host.metrics.text();
        assert.match(metrics, /local_responses_tokens_total\{protocol="vscode_lm",kind="output"\} [1-9]/);
    });

    it("returns a forced call (toolMode Required) with parsed input; its result's turn answers, reusing the prefix", async () => {
        const question = {role: user, content: [new TextPart("What is the weather in Paris?")]};
        const parts = await send([question], {tools: [weather], toolMode: required, modelOptions: {temperature: 0}});
        const calls = parts.filter((part): part is ToolCallPart => part instanceof ToolCallPart);
        assert.equal(calls.length, 1, `parts: ${JSON.stringify(parts)}`);
        const [call] = calls;
        assert.equal(call!.name, "get_weather");
        assert.equal(typeof (call!.input as {city?: unknown}).city, "string", "the input matches the tool's schema");
        assert.match(call!.callId, /^call_/);

        const answer = await send([
            question,
            {role: assistant, content: [call]},
            {role: user, content: [new ToolResultPart(call!.callId, [new TextPart("Sunny, 21 degrees.")])]}
        ], {tools: [weather], modelOptions: {maxTokens: 8, temperature: 0}});
        assert.ok(answer.length > 0);
        assert.ok(summaries.at(-1)!.usage.cachedTokens > 0, "the follow-up reused the conversation's cached prefix");
    });

    it("stops at once when cancelled during prompt evaluation: nothing streamed, the sequence freed", async () => {
        const story = "Once upon a time there was a little girl named Lily. She liked to play in the park. ".repeat(16);
        const cancellation = cancellationSource();
        let progressAtCancel: PromptProgress | null = null;
        promptProgress = (progress) => {
            if (progressAtCancel == null && progress.evaluated < progress.total) {
                progressAtCancel = progress;
                cancellation.cancel();
            }
        };
        const parts: unknown[] = [];
        const generations = summaries.length;
        try {
            await provider.provideLanguageModelChatResponse(model, [{role: user, content: [new TextPart(story)], name: undefined}],
                {toolMode: 1, modelOptions: {maxTokens: 50}}, {report: (part) => parts.push(part)}, cancellation.token);
        } finally {
            promptProgress = null;
        }
        assert.ok(progressAtCancel != null, "cancelled mid-prompt");
        assert.deepEqual(parts, []);
        assert.equal(controller.host.engine.stats().sequencesBusy, 0);
        assert.equal(controller.host.engine.activity.snapshot().active, 0);
        assert.equal(summaries.length, generations, "no generation finished");
    });

    it("counts tokens as /v1/responses/input_tokens does on the same text", async () => {
        const text = "How many tokens is this sentence?";
        const counted = await provider.provideTokenCount(model, text);
        const served = await controller.host.responses.countInputTokens("someone", {model: "stories260K", input: text});
        assert.equal(counted, served.input_tokens);
        assert.equal(await provider.provideTokenCount(model, {role: user, content: [new TextPart(text)], name: undefined}), counted);
    });

    it("lists nothing once the model is unloaded, and says the list changed", async () => {
        const before = changes;
        await controller.unloadModel();
        assert.equal(changes, before + 1);
        assert.deepEqual(provider.provideLanguageModelChatInformation(), []);
    });
});
