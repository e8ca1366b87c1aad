import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {defaultBusyPollBelowTokenMs} from "../../src/engine/llama/runtime/BusyPoll.js";
import {CliUsageError, parseCliOptions} from "../../src/host/cliOptions.js";

describe("--cache-type-k", () => {
    it("takes f16 (the default) or q8_0, from the flag or the environment", () => {
        assert.equal(parseCliOptions([], {}).config.cacheTypeK, "f16");
        assert.equal(parseCliOptions(["--cache-type-k", "q8_0"], {}).config.cacheTypeK, "q8_0");
        assert.equal(parseCliOptions([], {LOCAL_RESPONSES_CACHE_TYPE_K: "q8_0"}).config.cacheTypeK, "q8_0");
    });

    it("refuses any other type with a usage error that names the choices", () => {
        assert.throws(() => parseCliOptions(["--cache-type-k", "q4_0"], {}),
            (error: unknown) => error instanceof CliUsageError && error.message === "--cache-type-k must be f16 or q8_0 (got 'q4_0').");
    });
});

describe("--speculative and --draft-model", () => {
    it("defaults to off, takes lookup, and a draft model implies draft", () => {
        assert.deepEqual(pick(parseCliOptions([], {}).config), ["off", null]);
        assert.deepEqual(pick(parseCliOptions(["--speculative", "lookup"], {}).config), ["lookup", null]);
        assert.deepEqual(pick(parseCliOptions(["--draft-model", "d.gguf"], {}).config), ["draft", "d.gguf"]);
        assert.deepEqual(pick(parseCliOptions([], {LOCAL_RESPONSES_SPECULATIVE: "draft", LOCAL_RESPONSES_DRAFT_MODEL: "d.gguf"}).config),
            ["draft", "d.gguf"]);
    });

    it("refuses an unknown mode, a draft without its model and a model without draft, naming the flags", () => {
        const refused = (args: string[], message: RegExp) => assert.throws(() => parseCliOptions(args, {}),
            (error: unknown) => error instanceof CliUsageError && message.test(error.message));
        refused(["--speculative", "ngram"], /--speculative must be off, lookup or draft/);
        refused(["--speculative", "draft"], /--speculative draft needs --draft-model/);
        refused(["--speculative", "lookup", "--draft-model", "d.gguf"], /--draft-model is only used with --speculative draft/);
    });

    function pick(config: {speculative: string, draftModelPath: string | null}): [string, string | null] {
        return [config.speculative, config.draftModelPath];
    }
});

describe("--busy-poll-below-ms", () => {
    it("defaults to defaultBusyPollBelowTokenMs, takes whole ms from the flag or the environment (nothing else), and 0 "
        + "turns polling off", () => {
        assert.equal(parseCliOptions([], {}).config.busyPollBelowTokenMs, defaultBusyPollBelowTokenMs);
        assert.equal(parseCliOptions(["--busy-poll-below-ms", "5"], {}).config.busyPollBelowTokenMs, 5);
        assert.equal(parseCliOptions([], {LOCAL_RESPONSES_BUSY_POLL_BELOW_MS: "0"}).config.busyPollBelowTokenMs, 0);
        assert.throws(() => parseCliOptions(["--busy-poll-below-ms", "1.5"], {}), CliUsageError);
    });
});

describe("--batch-size", () => {
    it("defaults to the device's (null), takes a whole number of tokens from the flag or the environment", () => {
        assert.equal(parseCliOptions([], {}).config.batchSize, null);
        assert.equal(parseCliOptions(["--batch-size", "128"], {}).config.batchSize, 128);
        assert.equal(parseCliOptions([], {LOCAL_RESPONSES_BATCH_SIZE: "256"}).config.batchSize, 256);
        assert.throws(() => parseCliOptions(["--batch-size", "0"], {}), CliUsageError);
    });
});

describe("the model library's flags", () => {
    it("--model repeats (the first is the default model); the library's limits from flags or the environment", () => {
        const {config} = parseCliOptions(["--model", "a.gguf", "--model", "b.gguf", "--model", "c.gguf", "--models-dir", "/m",
            "--max-loaded-models", "2", "--memory-budget", "24GiB", "--idle-unload-secs", "600"], {});
        assert.equal(config.modelPath, "a.gguf");
        assert.deepEqual(config.library, {
            extraModelPaths: ["b.gguf", "c.gguf"], modelsDir: "/m", presetsFile: null, maxLoaded: 2, memoryBudgetBytes: 24 * 2 ** 30,
            idleUnloadSeconds: 600, withUpstream: false, isolation: "process"
        });
        assert.equal(parseCliOptions(["--model-isolation", "shared"], {}).config.library.isolation, "shared");
        assert.throws(() => parseCliOptions(["--model-isolation", "thread"], {}), CliUsageError);
        const fromEnv = parseCliOptions([], {LOCAL_RESPONSES_MEMORY_BUDGET: "512MiB", LOCAL_RESPONSES_MODELS_DIR: "/n"}).config.library;
        assert.equal(fromEnv.memoryBudgetBytes, 512 * 2 ** 20);
        assert.equal(fromEnv.modelsDir, "/n");
        assert.equal(parseCliOptions(["--memory-budget", "1073741824"], {}).config.library.memoryBudgetBytes, 2 ** 30);
        assert.equal(parseCliOptions(["--memory-budget", "8G"], {}).config.library.memoryBudgetBytes, 8 * 2 ** 30);
        assert.equal(parseCliOptions([], {}).config.library.idleUnloadSeconds, null);
    });

    it("--upstream beside --model or --models-dir serves both; --engine upstream, or --upstream alone, stays as it was", () => {
        const urls = ["--upstream", "http://gpu:8000/v1"];
        for (const local of [["--model", "a.gguf"], ["--models-dir", "/m"], ["--model", "a.gguf", "--model", "b.gguf"]]) {
            const {config} = parseCliOptions([...local, ...urls], {});
            assert.equal(config.engine, "local");
            assert.equal(config.library.withUpstream, true, local.join(" "));
            assert.deepEqual(config.upstream.urls, ["http://gpu:8000/v1"]);
        }
        const fromEnv = parseCliOptions(["--model", "a.gguf"], {LOCAL_RESPONSES_UPSTREAM: "http://gpu:8000"});
        assert.equal(fromEnv.config.library.withUpstream, true);
        assert.equal(parseCliOptions(["--engine", "upstream", "--model", "a.gguf", ...urls], {}).config.library.withUpstream, false);
        assert.equal(parseCliOptions(urls, {}).config.library.withUpstream, false, "no local model: the demo model, as before");
        assert.equal(parseCliOptions(["--model", "a.gguf"], {}).config.library.withUpstream, false);
    });

    it("refuses a size it cannot read", () => {
        assert.throws(() => parseCliOptions(["--memory-budget", "lots"], {}),
            (error: unknown) => error instanceof CliUsageError && /--memory-budget must be a size in bytes/.test(error.message));
    });
});
