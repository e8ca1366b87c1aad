import assert from "node:assert/strict";
import {afterEach, beforeEach, describe, it} from "node:test";
import type {ChatHistoryItem, ChatWrapperGeneratedContextState, LlamaChat, LlamaCompletion} from "node-llama-cpp";
import {loadNodeLlamaCpp} from "../../../../../src/engine/models/loadBinding.js";
import {planPlainCompletion} from "../../../../../src/engine/llama/generation/plainCompletion.js";
import type {GenerationRequest} from "../../../../../src/engine/types.js";
import {withEngine} from "../../../../helpers/loadedEngine.js";
import {models} from "../../../../helpers/paths.js";
import {useTinyModel} from "../../../../helpers/tinyModel.js";

/** Greedy stories260K ends its answer to this on its own, after 269 tokens. */
const turns = [{role: "user" as const, text: "Once upon a time"}];

/** Counts the calls into node-llama-cpp's two generation APIs while a test runs. */
function useApiCalls(): {chat: number, completion: number} {
    const calls = {chat: 0, completion: 0};
    const restore: (() => void)[] = [];
    beforeEach(async () => {
        calls.chat = 0;
        calls.completion = 0;
        const {LlamaChat, LlamaCompletion} = await loadNodeLlamaCpp();
        // The originals: the wrappers call them with their `this`, and they go back on the prototypes after each test.
        // eslint-disable-next-line @typescript-eslint/unbound-method
        const chat = LlamaChat.prototype.generateResponse;
        // eslint-disable-next-line @typescript-eslint/unbound-method
        const completion = LlamaCompletion.prototype.generateCompletionWithMeta;
        LlamaChat.prototype.generateResponse = function (this: LlamaChat, ...args: Parameters<LlamaChat["generateResponse"]>) {
            calls.chat++;
            return chat.apply(this, args);
        } as LlamaChat["generateResponse"];
        LlamaCompletion.prototype.generateCompletionWithMeta = function (this: LlamaCompletion,
            ...args: Parameters<LlamaCompletion["generateCompletionWithMeta"]>) {
            calls.completion++;
            return completion.apply(this, args);
        };
        restore.push(() => {
            LlamaChat.prototype.generateResponse = chat;
            LlamaCompletion.prototype.generateCompletionWithMeta = completion;
        });
    });
    afterEach(() => restore.splice(0).forEach((undo) => undo()));
    return calls;
}

describe("plain-text answers through LlamaCompletion (real node-llama-cpp, stories260K)", () => {
    const calls = useApiCalls();

    it("a plain-text turn is completed by LlamaCompletion and gives LlamaChat's answer, token for token, on the same prompt", async () => {
        let streamed = "";
        const request: GenerationRequest = {turns, maxOutputTokens: 400, sampling: {temperature: 0}, onEvent: (event) => {
            if (event.type === "text")
                streamed += event.text;
        }};
        const served = await withEngine(models.chatml, (engine) => engine.generate(request));
        assert.deepEqual(calls, {chat: 0, completion: 1}, "the plain turn ran on LlamaCompletion alone");
        assert.equal(streamed, served.text);
        assert.equal(served.stopReason, "stop", "the answer ends at the wrapper's end of turn, as LlamaChat's does");

        // node-llama-cpp's LlamaChat on its own context, the same model and prompt, greedy.
        const {getLlama, LlamaChat} = await loadNodeLlamaCpp();
        const llama = await getLlama({gpu: false, build: "never", maxThreads: 1});
        const model = await llama.loadModel({modelPath: models.chatml});
        const context = await model.createContext({contextSize: 1024, threads: 1});
        try {
            const chat = new LlamaChat({contextSequence: context.getSequence()});
            const history: ChatHistoryItem[] = [{type: "user", text: turns[0]!.text}, {type: "model", response: []}];
            const expected = await chat.generateResponse(history, {maxTokens: 400, temperature: 0});
            assert.ok(expected.response.length > 20);
            assert.equal(served.text, expected.response);
            assert.equal(expected.metadata.stopReason, "eogToken");
        } finally {
            await context.dispose();
            await model.dispose();
        }
    });

    it("the next turn reuses every token of the plain answer's prompt and the answer itself", async () => {
        await withEngine(models.chatml, async (engine) => {
            const first = await engine.generate({turns, maxOutputTokens: 40, sampling: {temperature: 0}});
            const second = await engine.generate({
                turns: [...turns, {role: "model", parts: [{type: "text", text: first.text}]}, {role: "user", text: "And then?"}],
                maxOutputTokens: 8, sampling: {temperature: 0}
            });
            assert.equal(calls.completion, 2);
            // The first prompt, the answer as generated; only the new turn's tokens (and the answer's last) are evaluated.
            assert.ok(second.usage.cachedTokens >= first.usage.inputTokens + first.usage.outputTokens - 1,
                `${second.usage.cachedTokens} cached of ${second.usage.inputTokens}; the first turn held ${first.usage.inputTokens} `
                    + `+ ${first.usage.outputTokens}`);
        });
    });

    it("tools, a JSON grammar, thoughts and a template that ignores leading text go through LlamaChat", async () => {
        const short = {turns, maxOutputTokens: 4, sampling: {temperature: 0}};
        await withEngine(models.chatml, async (engine) => {
            await engine.generate(short);
            assert.deepEqual(calls, {chat: 0, completion: 1});
            await engine.generate({
                ...short,
                tools: [{name: "get_weather", description: "Weather", parameters: {type: "object", properties: {city: {type: "string"}}}}]
            });
            await engine.generate({...short, json: {type: "object"}});
            assert.deepEqual(calls, {chat: 2, completion: 1});
        });
        await withEngine(models.think, (engine) => engine.generate(short));
        assert.deepEqual(calls, {chat: 3, completion: 1}, "a wrapper with thought segments needs LlamaChat");
        // node-llama-cpp's Jinja wrapper asks to drop whitespace the answer opens with (`ignoreStartText`).
        await withEngine(models.qwen, (engine) => engine.generate(short));
        assert.deepEqual(calls, {chat: 4, completion: 1});
    });
});

describe("planPlainCompletion (the real stories260K tokenizer and ChatML wrapper)", () => {
    const model = useTinyModel();

    const render = async () => {
        const {resolveChatWrapper} = await loadNodeLlamaCpp();
        const wrapper = resolveChatWrapper(model());
        const state = wrapper.generateContextState({chatHistory: [{type: "user", text: "Hi"}, {type: "model", response: []}]});
        return {wrapper, state, prompt: state.contextText.tokenize(model().tokenizer) as number[]};
    };

    it("drops the BOS LlamaCompletion prepends itself, and keeps the wrapper's stop triggers", async () => {
        const {wrapper, state, prompt} = await render();
        assert.equal(prompt[0], model().tokens.bos, "this vocabulary starts a prompt with its BOS");
        const plan = planPlainCompletion(prompt, state, wrapper, model(), false);
        assert.deepEqual(plan?.input, prompt.slice(1));
        assert.equal(plan?.stopTriggers, state.stopGenerationTriggers);
    });

    it("refuses a prompt LlamaCompletion would change, tools, and renderings that need LlamaChat's machinery", async () => {
        const {wrapper, state, prompt} = await render();
        assert.equal(planPlainCompletion(prompt.slice(1), state, wrapper, model(), false), undefined,
            "without its BOS, a second one would be prepended");
        assert.equal(planPlainCompletion(prompt, state, wrapper, model(), true), undefined);
        assert.equal(planPlainCompletion(prompt, {...state, ignoreStartText: [state.contextText]} as ChatWrapperGeneratedContextState,
            wrapper, model(), false), undefined);
        assert.equal(planPlainCompletion(prompt, {...state, functionCall: {initiallyEngaged: true,
            disengageInitiallyEngaged: []}} as ChatWrapperGeneratedContextState, wrapper, model(), false), undefined);
        assert.equal(planPlainCompletion(prompt, {contextText: state.contextText, stopGenerationTriggers: [], rerender: {triggers: []}},
            wrapper, model(), false), undefined);
    });
});
