import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {HostedEngine} from "../../../src/engine/HostedEngine.js";
import {ModelLibrary} from "../../../src/engine/library/ModelLibrary.js";
import type {LibraryModelSpec} from "../../../src/engine/library/LibraryEntry.js";
import type {GenerationSummary} from "../../../src/engine/types.js";

const spec = (id: string): LibraryModelSpec => ({
    id, path: `/m/${id}.gguf`, bytes: 2 ** 30, parts: 1, projector: null, quantization: null, aliases: [], contextSize: null, parallel: null
});

const summary: GenerationSummary = {
    stopReason: "stop", text: "", calls: [], durationMs: 10, timeToFirstTokenMs: 2,
    usage: {inputTokens: 3, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0}
};

describe("model library: generation summaries", () => {
    it("names the model that generated each one, for the editor's timings and status bar", () => {
        // Each model's engine reports its generations unnamed, as an engine of one model does.
        const reporters = new Map<string, (summary: GenerationSummary) => void>();
        const library = new ModelLibrary({
            models: [spec("coder"), spec("small")],
            createEngine: (model) => ({
                onGeneration: (listener: (summary: GenerationSummary) => void) => {
                    reporters.set(model.id, listener);
                    return () => undefined;
                },
                onStateChange: () => () => undefined,
                dispose: () => Promise.resolve()
            }) as unknown as HostedEngine,
            estimate: () => Promise.reject(new Error("not estimated here")),
            maxLoaded: 2, memoryBudgetBytes: 2 ** 40, idleUnloadSeconds: null
        });
        const heard: (string | undefined)[] = [];
        library.onGeneration((generation) => heard.push(generation.model));
        reporters.get("small")!(summary);
        reporters.get("coder")!(summary);
        assert.deepEqual(heard, ["small", "coder"]);
    });
});
