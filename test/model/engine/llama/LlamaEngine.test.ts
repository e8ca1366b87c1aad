import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {EngineError} from "../../../../src/engine/EngineError.js";
import {LlamaEngine} from "../../../../src/engine/llama/LlamaEngine.js";
import type {EngineState} from "../../../../src/engine/types.js";
import {withEngine} from "../../../helpers/loadedEngine.js";
import {models} from "../../../helpers/paths.js";
import {syntheticModel} from "../../../helpers/syntheticModel.js";

const turns = [{role: "user" as const, text: "Tell me a long story."}];

describe("LlamaEngine lifecycle (real node-llama-cpp, stories260K)", () => {
    it("loads with progress and state changes, generates, reloads and unloads", async () => {
        const engine = new LlamaEngine({threads: 1, contextSize: 1024, parallel: 2});
        const states: EngineState[] = [];
        engine.onStateChange((state) => states.push(state));
        const phases = new Set<string>();
        const info = await engine.load(models.chatml, (progress) => phases.add(progress.phase));
        try {
            assert.deepEqual([...phases], ["binding", "model", "context"]);
            assert.equal(info.id, "stories260K");
            assert.equal(info.contextSize, 1024);
            assert.equal(info.sequences, 2);
            assert.equal(info.chatWrapper, "ChatML");
            assert.equal(engine.state, "ready");

            const result = await engine.generate({turns, maxOutputTokens: 8, sampling: {temperature: 0}});
            assert.equal(result.usage.outputTokens, 8);
            assert.equal(result.stopReason, "length");
            assert.ok(result.timeToFirstTokenMs != null && result.timeToFirstTokenMs >= 0);

            const again = await engine.generate({turns, maxOutputTokens: 8, sampling: {temperature: 0}});
            assert.equal(again.text, result.text, "greedy decoding is deterministic");
            assert.equal(again.usage.cachedTokens, again.usage.inputTokens - 1,
                "the whole prompt but its last token came from the KV cache");

            await engine.reload();
            assert.equal(engine.state, "ready");
            assert.equal((await engine.generate({turns, maxOutputTokens: 8, sampling: {temperature: 0}})).text, result.text);
        } finally {
            await engine.dispose();
        }
        assert.equal(engine.state, "unloaded");
        assert.deepEqual(states, ["loading", "ready", "loading", "ready", "unloaded"]);
        await assert.rejects(engine.generate({turns}), (error: unknown) => error instanceof EngineError && error.kind === "not_ready");
    });

    it("delivers every event before the result, in order, and fails the generation when the consumer throws", async () => {
        const engine = new LlamaEngine({threads: 1, contextSize: 1024, parallel: 1});
        await engine.load(models.chatml);
        try {
            let streamed = "";
            let resolved = false;
            const result = await engine.generate({turns, maxOutputTokens: 24, sampling: {temperature: 0}, onEvent: (event) => {
                assert.equal(resolved, false, "no event after the result");
                if (event.type === "text")
                    streamed += event.text;
            }});
            resolved = true;
            assert.ok(result.text.length > 0);
            assert.equal(streamed, result.text, "the streamed text is the result's, in order");

            let events = 0;
            const failure = new Error("the consumer failed");
            await assert.rejects(engine.generate({turns, maxOutputTokens: 1000, sampling: {temperature: 0}, onEvent: () => {
                events++;
                if (events === 3)
                    throw failure;
            }}), (error: unknown) => error === failure);
            assert.equal(events, 3, "no event reaches a consumer after it threw");
            assert.equal(engine.stats().sequencesBusy, 0, "the sequence is free again");
            const after = await engine.generate({turns, maxOutputTokens: 24, sampling: {temperature: 0}});
            assert.equal(after.text, result.text, "the sequence still generates");
        } finally {
            await engine.dispose();
        }
    });

    it("unloading aborts a running generation and waits for it before freeing the context", async () => {
        const engine = new LlamaEngine({threads: 1, contextSize: 2048, parallel: 1});
        await engine.load(models.chatml);
        let tokens = 0;
        const running = engine.generate({turns, maxOutputTokens: 1900, onEvent: () => void tokens++});
        while (tokens === 0)
            await new Promise((resolve) => setTimeout(resolve, 1));
        await engine.unload();
        const result = await running.then((value) => value.stopReason,
            (error: unknown) => (error instanceof EngineError ? error.kind : String(error)));
        assert.ok(result === "abort" || result === "aborted", result);
        await engine.dispose();
    });

    it("loads with the context plan: the trained context and 4 sequences by default; a larger context alone, fewer sequences", async () => {
        for (const [options, expected] of [[{}, {contextSize: 2048, sequences: 4}],
            [{contextSize: 16384}, {contextSize: 16384, sequences: 2}]] as const) {
            const engine = new LlamaEngine({threads: 1, ...options});
            try {
                const info = await engine.load(models.chatml);
                assert.deepEqual({contextSize: info.contextSize, sequences: info.sequences}, expected);
                assert.equal(engine.stats().sequencesTotal, expected.sequences);
            } finally {
                await engine.dispose();
            }
        }
    });

    it("refuses a prompt that leaves no room for output with context_overflow, before any sequence is taken", async () => {
        await withEngine(models.chatml, async (engine) => {
            await assert.rejects(engine.generate({turns: [{role: "user", text: "word ".repeat(400)}]}),
                (error: unknown) => error instanceof EngineError && error.kind === "context_overflow");
            // Past the text-length bound: rendered, then refused; the message says what the operator can change.
            await assert.rejects(engine.generate({turns: [{role: "user", text: "word ".repeat(100)}]}), (error: unknown) => {
                assert.ok(error instanceof EngineError && error.kind === "context_overflow", String(error));
                assert.match(error.message,
                    /^The input is \d+ tokens, which leaves no room for output in the context of \d+ tokens\. The model was trained on 2048 tokens: give the server a larger --context-size/);
                return true;
            });
            assert.equal(engine.stats().sequencesBusy, 0);
        }, {contextSize: 128});
    });

    it("counts the offered tools in the early bound: megabytes of tool text are refused before they are rendered", async () => {
        await withEngine(models.chatml, async (engine) => {
            const tools = [{
                name: "read_file",
                description: "Reads one file of the workspace. ".repeat(4),
                parameters: {
                    type: "object",
                    properties: {path: {type: "string", description: "The file's path."}, mode: {type: "string", enum: ["text", "bytes"]}}
                }
            }];
            // A real rendering holds at least what the bound counts (it stays a lower bound).
            const rendered = await engine.countPromptTokens(turns, tools);
            const {maxTokenCharacters, minimumPromptTokens} = await import("../../../../src/engine/llama/prompt/promptBounds.js");
            const {getLlama} = await import("node-llama-cpp");
            const model = await (await getLlama({gpu: false})).loadModel({modelPath: models.chatml});
            try {
                const minimum = minimumPromptTokens(turns, maxTokenCharacters(model), tools);
                assert.ok(minimum > 0 && minimum <= rendered, `${minimum} ≤ ${rendered}`);
            } finally {
                await model.dispose();
            }
            const huge = [{name: "huge", description: "x".repeat(8 * 1024 * 1024), parameters: {type: "object", properties: {}}}];
            const started = performance.now();
            await assert.rejects(engine.countPromptTokens(turns, huge), (error: unknown) => {
                assert.ok(error instanceof EngineError && error.kind === "context_overflow", String(error));
                assert.match(error.message, /^The input is at least \d+ tokens/, "refused by the bound, not after rendering");
                return true;
            });
            assert.ok(performance.now() - started < 1000, `refused at once (${(performance.now() - started).toFixed(0)} ms)`);
        });
    });

    it("a file that is not a model fails to load cleanly", async () => {
        const engine = new LlamaEngine({threads: 1});
        await assert.rejects(engine.load(new URL(import.meta.url).pathname),
            (error: unknown) => error instanceof EngineError && error.kind === "load_failed");
        assert.equal(engine.state, "failed");
        await engine.dispose();
    });
});

describe("max_output_tokens holds when the last token allowed ends inside a character (real node-llama-cpp, synthetic model)", () => {
    it("no plain answer has more tokens than its limit, and its text is what streamed", async () => {
        // The random-weight model, sampled, writes byte tokens often, so some answer's last token is half of a
        // character: the case where LlamaCompletion generated one token more than its maxTokens (AnswerTokenBudget). A
        // seed makes each answer the start of the next longer one.
        await withEngine(await syntheticModel(), async (engine) => {
            let endedInsideCharacter = 0;
            for (let maxOutputTokens = 1; maxOutputTokens <= 24; maxOutputTokens++) {
                let streamed = "";
                const result = await engine.generate({
                    turns: [{role: "user", text: "Hello"}], maxOutputTokens, sampling: {temperature: 1, seed: 1},
                    onEvent: (event) => streamed += event.type === "text" ? event.text : ""
                });
                if (result.stopReason !== "length")
                    break;
                assert.equal(result.usage.outputTokens, maxOutputTokens, `max_output_tokens ${maxOutputTokens}`);
                assert.equal(result.text, streamed);
                if (streamed.endsWith("\uFFFD"))
                    endedInsideCharacter++;
            }
            assert.ok(endedInsideCharacter > 0, "some answer's last token ended inside a character (else this test proves nothing)");
        });
    });
});
