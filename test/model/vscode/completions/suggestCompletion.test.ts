import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import type {CompletionRequest, RawEngine} from "../../../../src/engine/completionTypes.js";
import {EngineError} from "../../../../src/engine/EngineError.js";
import {LlamaEngine} from "../../../../src/engine/llama/LlamaEngine.js";
import {linesOf} from "../../../../src/vscode/completions/cursorWindow.js";
import {completionsOwner} from "../../../../src/vscode/completions/EditorCompletions.js";
import {suggestCompletion, type SuggestionInput} from "../../../../src/vscode/completions/suggestCompletion.js";
import {withEngine} from "../../../helpers/loadedEngine.js";
import {models} from "../../../helpers/paths.js";
import {templateModel} from "../../../helpers/templateModel.js";

/**
 * A scripted model with Qwen2.5-Coder's tokenizer (its FIM tokens): after `<|fim_middle|>`, the last token of every
 * fill-in-the-middle prompt, it writes `return a + b;`, a line end and `}`, then its end token, greedily (layers
 * zeroed, a bigram table: ../shared/models/templates/). So the text the editor would show is known token for token.
 */
const middle = ["<|fim_middle|>", "return", " a", " +", " b", ";", "\n", "}"];
const limits = {prefixLines: 256, suffixLines: 64, maxTokens: 64, timeLimitMs: 5000};
const routing = {cachePartition: completionsOwner};

/** The file with the cursor where `|` is. */
function at(text: string, extra: SuggestionInput["extra"] = []): SuggestionInput {
    const before = text.slice(0, text.indexOf("|"));
    const line = before.split("\n").length - 1;
    return {document: linesOf(text.replace("|", "")), cursor: {line, character: before.length - before.lastIndexOf("\n") - 1}, extra};
}

describe("suggestCompletion on the real engine (Qwen2.5 tokenizer, scripted middle)", () => {
    let engine: LlamaEngine;

    before(async () => {
        engine = new LlamaEngine({threads: 1, contextSize: 2048, parallel: 1});
        await engine.load(await templateModel("qwen2.5", {name: "fim-middle", chain: middle}));
    });
    after(() => engine?.dispose());

    it("reports the model's fill-in-the-middle tokens", () => {
        assert.equal(engine.model?.fillInTheMiddle, true);
    });

    it("fills a block body on the blank line after its header, without the closer the file has already", async () => {
        const outcome = await suggestCompletion(engine, at("function add(a, b) {\n    |\n}\n\nconsole.log(add(1, 2));\n"), limits, routing);
        assert.equal(outcome.multiline, true);
        assert.equal(outcome.result.text, "return a + b;\n}", "the model's whole middle: no stop at the line end");
        assert.equal(outcome.text, "return a + b;");
    });

    it("stops a one-line suggestion at the line end, and does not repeat the rest of the line", async () => {
        const outcome = await suggestCompletion(engine, at("const sum = |;\nconsole.log(sum);\n"), limits, routing);
        assert.equal(outcome.multiline, false);
        assert.equal(outcome.result.stopReason, "stop");
        assert.equal(outcome.result.text, "return a + b;", "generation stopped at the line end, not only the text");
        assert.equal(outcome.text, "return a + b", "the file's own ; after the cursor is not shown again");
    });

    it("reads the file's prefix and the context chunks from the cache on the next keystroke", async () => {
        const body = Array.from({length: 60}, (_, index) => `    const v${index} = compute(${index}, "${"x".repeat(index % 7)}");`)
            .join("\n");
        const extra = [{filename: "src/math.ts", text: "export function compute(n: number, s: string) {\n    return n + s.length;\n}\n"}];
        const first = await suggestCompletion(engine, at(`function run() {\n${body}\n    const total = |\n}\n`, extra), limits, routing);
        const next = await suggestCompletion(engine, at(`function run() {\n${body}\n    const total = v|\n}\n`, extra), limits, routing);
        assert.ok(first.result.usage.inputTokens > 600, `a long prompt (${first.result.usage.inputTokens} tokens)`);
        const {inputTokens, cachedTokens} = next.result.usage;
        assert.ok(cachedTokens >= inputTokens * 0.9, `${cachedTokens} of ${inputTokens} prompt tokens read from the cache`);
    });

    it("stops generating at once when the signal aborts (the next keystroke), and shows nothing", async () => {
        const abort = new AbortController();
        let pieces = 0;
        // The editor's keystroke arrives while the model writes: here, right after its first piece of text.
        const abortingEngine: Pick<RawEngine, "complete"> = {
            complete: (request: CompletionRequest) => engine.complete({...request, onText: () => {
                pieces++;
                abort.abort();
            }})
        };
        const outcome = await suggestCompletion(abortingEngine, at("function add(a, b) {\n    |\n}\n"), limits,
            {...routing, signal: abort.signal});
        assert.equal(outcome.text, null);
        assert.equal(outcome.result.stopReason, "abort");
        assert.equal(pieces, 1);
        assert.ok(outcome.result.usage.outputTokens < middle.length - 1,
            `${outcome.result.usage.outputTokens} of ${middle.length - 1} tokens generated`);
        const again = await suggestCompletion(engine, at("function add(a, b) {\n    |\n}\n"), limits, routing);
        assert.equal(again.text, "return a + b;", "the sequence is free for the next suggestion");
    });
});

describe("suggestCompletion on a model without fill-in-the-middle tokens", () => {
    it("is refused before anything is evaluated, and the model says it has none", async () => {
        await withEngine(models.chatml, async (engine) => {
            assert.equal(engine.model?.fillInTheMiddle, false);
            await assert.rejects(suggestCompletion(engine, at("x = |\n"), limits, routing), (error: unknown) => {
                assert.ok(error instanceof EngineError);
                assert.equal(error.kind, "unsupported");
                assert.match(error.message, /no fill-in-the-middle tokens/);
                return true;
            });
        });
    });
});
