import assert from "node:assert/strict";
import {test} from "node:test";
import {EngineError} from "../../../src/engine/EngineError.js";
import type {CompletionRequest, CompletionResult} from "../../../src/engine/completionTypes.js";
import type {ChatEngine, ModelInfo} from "../../../src/engine/types.js";
import type {GenerationStats} from "../../../src/responses/pipeline/GenerationRunner.js";
import {linesOf} from "../../../src/vscode/completions/cursorWindow.js";
import {
    EditorCompletions, completionsOwner, type CompletionController, type CompletionCore
} from "../../../src/vscode/completions/EditorCompletions.js";

const model = {id: "coder", fillInTheMiddle: true} as ModelInfo;
const settings = {enabled: true, model: null, debounceMs: 0, maxTokens: 16, timeLimitMs: 1000, prefixLines: 8, suffixLines: 8};
const input = {document: linesOf("const x = \nconsole.log(x);\n"), cursor: {line: 0, character: 10}, extra: []};

/** A core whose engine answers each request with `answer` (pure logic only: the real engine's test is test/model/vscode/). */
function coreWith(answer: (request: CompletionRequest) => Promise<CompletionResult>) {
    const requests: CompletionRequest[] = [];
    const generations: GenerationStats[] = [];
    const outcomes: string[] = [];
    const engine = {
        model, library: null,
        complete: (request: CompletionRequest) => {
            requests.push(request);
            return answer(request);
        },
        embed: () => Promise.reject(new Error("not used"))
    } as unknown as ChatEngine;
    const core: CompletionCore = {
        engine, responses: {cachePartition: (owner) => `partition of ${owner}`},
        metrics: {recordGeneration: (stats) => generations.push(stats), recordEditorSuggestion: (outcome) => outcomes.push(outcome)}
    };
    const controller: CompletionController = {
        state: {engineKind: "local", model, library: null},
        onChange: () => () => undefined,
        onHost: (listener) => {
            listener(core);
            return () => undefined;
        }
    };
    return {controller, requests, generations, outcomes};
}

const result = (text: string, stopReason: CompletionResult["stopReason"] = "stop"): CompletionResult => ({
    stopReason, text, usage: {inputTokens: 20, cachedTokens: 12, outputTokens: 3}, timings: {promptMs: 5, generationMs: 10}
});

test("a suggestion is asked in the completions' own cache partition and counted as vscode_completions and shown", async () => {
    const {controller, requests, generations, outcomes} = coreWith(() => Promise.resolve(result("42;\nmore")));
    const completions = new EditorCompletions(controller, settings);
    assert.equal(await completions.suggest(input, new AbortController().signal), "42;");
    assert.equal(requests[0]!.cachePartition, `partition of ${completionsOwner}`);
    assert.equal(requests[0]!.prompt, "const x = ");
    assert.equal(requests[0]!.suffix, "\nconsole.log(x);\n");
    assert.deepEqual(requests[0]!.stopSequences, ["\n"]);
    assert.deepEqual(generations.map(({protocol, status, cachedTokens}) => ({protocol, status, cachedTokens})),
        [{protocol: "vscode_completions", status: "completed", cachedTokens: 12}]);
    assert.deepEqual(outcomes, ["shown"]);
    completions.accepted();
    assert.deepEqual(outcomes, ["shown", "accepted"]);
    assert.equal(completions.stats.snapshot.counts.accepted, 1);
});

test("the signal reaches the engine: an aborted suggestion shows nothing and counts as cancelled", async () => {
    const {controller, outcomes, generations} = coreWith((request) => new Promise((resolve) => {
        request.signal!.addEventListener("abort", () => resolve(result("partial", "abort")), {once: true});
    }));
    const completions = new EditorCompletions(controller, settings);
    const abort = new AbortController();
    const asked = completions.suggest(input, abort.signal);
    abort.abort();
    assert.equal(await asked, null);
    assert.deepEqual(outcomes, ["cancelled"]);
    assert.equal(generations[0]!.status, "cancelled");
});

test("a model refused for fill-in-the-middle turns completion off with the engine's reason", async () => {
    const {controller, outcomes} = coreWith(() => Promise.reject(new EngineError("unsupported", "The model 'coder' has no FIM tokens.")));
    const completions = new EditorCompletions(controller, settings);
    let changes = 0;
    completions.onChange(() => changes++);
    await assert.rejects(completions.suggest(input, new AbortController().signal), /no FIM tokens/);
    assert.deepEqual(completions.availability,
        {state: "unavailable", hint: "Code completion is off: The model 'coder' has no FIM tokens."});
    assert.deepEqual(outcomes, ["failed"]);
    assert.ok(changes > 0);
    assert.equal(await completions.suggest(input, new AbortController().signal), null, "not asked again");
    completions.update({...settings, model: "other"});
    assert.equal(completions.availability.state, "on", "another model is asked again");
});
