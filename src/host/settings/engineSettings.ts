import {defaultGpu, defaultPromptThreads, defaultQueueLimit, defaultThreads} from "../../engine/engineDefaults.js";
import {defaultKeyCacheType, keyCacheTypes, type KeyCacheType} from "../../engine/keyCacheType.js";
import type {GpuChoice, SpeculativeKind} from "../../engine/types.js";
import {cliSetting, editorSetting} from "./setting.js";
import {automatic, boolean, choice, integer, list, optionalText} from "./settingKinds.js";

/** How the local engine runs: threads, context, sequences, batches, the GPU, the KV cache, speculative decoding. */
export const engineSettings = {
    threads: editorSetting({
        kind: integer({min: 1, max: 1024, auto: true}),
        cli: {flag: "threads", env: "LOCAL_RESPONSES_THREADS", help: "CPU threads for generation (default cores - 1)"},
        editor: {
            key: "threads", default: 0, reaction: "rebuild", restricted: true, scope: "machine-overridable", order: 20,
            description: "CPU threads for generation; 0 = cores − 1 (the thread that samples and streams each token needs a "
                + "core of its own)."
        },
        apply(config, value) {
            config.threads = automatic(value) ?? defaultThreads();
        }
    }),
    promptThreads: editorSetting({
        kind: integer({min: 1, max: 1024, auto: true}),
        cli: {
            flag: "prompt-threads", env: "LOCAL_RESPONSES_PROMPT_THREADS", help: "CPU threads for prompt evaluation (default: every core)"
        },
        editor: {
            key: "promptThreads", default: 0, reaction: "rebuild", restricted: true, scope: "machine-overridable", order: 20,
            description: "CPU threads for prompt evaluation; 0 = every core (on a 2-core machine prompts evaluated 1.6–1.8× "
                + "faster on 2 threads than on 1)."
        },
        apply(config, value) {
            config.promptThreads = automatic(value) ?? defaultPromptThreads();
        }
    }),
    contextSize: editorSetting({
        kind: integer({min: 64, max: 1 << 20, auto: true}),
        cli: {
            flag: "context-size", env: "LOCAL_RESPONSES_CONTEXT_SIZE", help: "context tokens per sequence (default: model's, at most 32768)"
        },
        editor: {
            key: "contextSize", default: 0, reaction: "rebuild", restricted: true, scope: "machine-overridable", order: 21,
            description: "Context tokens per sequence; 0 = the model's trained context, at most 32768 (a coding agent's prompt "
                + "is 13–18k tokens)."
        },
        apply(config, value) {
            config.contextSize = automatic(value);
        }
    }),
    parallel: editorSetting({
        kind: integer({min: 1, max: 64, auto: true}),
        cli: {
            flag: "parallel", env: "LOCAL_RESPONSES_PARALLEL",
            help: "parallel sequences (default: as many as a 32768-token cache holds, 1 to 4)"
        },
        editor: {
            key: "parallel", default: 0, reaction: "rebuild", restricted: true, scope: "machine-overridable", order: 22,
            description: "Parallel sequences: requests generated at once, batched together; 0 = as many as a 32768-token cache "
                + "holds at the context size, 1 to 4 (1 × 32768 for a model trained on 32k or more, 4 × 8192 for an 8k model)."
        },
        apply(config, value) {
            config.parallel = automatic(value);
        }
    }),
    batchSize: cliSetting({
        kind: integer({min: 1}),
        cli: {
            flag: "batch-size", env: "LOCAL_RESPONSES_BATCH_SIZE",
            help: "tokens per native evaluation, the largest prompt step (default: 128 on the CPU, where narrower batches evaluate "
                + "prompts faster; 512 on a GPU)"
        },
        apply(config, value) {
            config.batchSize = value;
        }
    }),
    queueLimit: editorSetting({
        kind: integer({min: 0, max: 100_000}),
        cli: {flag: "queue-limit", env: "LOCAL_RESPONSES_QUEUE_LIMIT", help: "requests waiting for a sequence before 503 (default 64)"},
        editor: {
            key: "queueLimit", default: defaultQueueLimit, reaction: "rebuild", restricted: true, scope: "machine-overridable", order: 23,
            description: "Requests that may wait for a sequence before new ones get 503."
        },
        apply(config, value) {
            config.queueLimit = value;
        }
    }),
    gpu: editorSetting({
        kind: choice<GpuChoice>([false, "auto", "cuda", "vulkan", "metal"], {off: false, cpu: false}),
        cli: {
            flag: "gpu", env: "LOCAL_RESPONSES_GPU",
            help: "auto (default: the best GPU backend installed and usable here, layers fitted to free VRAM, else the CPU), "
                + "false (CPU only), cuda, vulkan or metal"
        },
        editor: {
            key: "gpu", default: defaultGpu, reaction: "rebuild", restricted: true, scope: "machine-overridable", order: 24,
            description: "Where the model computes. auto: the best GPU backend this install carries and the machine can run "
                + "(Metal on Apple silicon; CUDA, then Vulkan where their build and driver are there), its layers fitted to the "
                + "free VRAM, else the CPU. The linux-x64 and win32-x64 VSIXs carry the CPU build only.",
            enumDescriptions: ["CPU only", "The best GPU backend available, else the CPU (default)", "CUDA", "Vulkan", "Metal"]
        },
        apply(config, value) {
            config.gpu = value;
        }
    }),
    stop: cliSetting({
        kind: list({many: "stop texts", map: unescapeStop}),
        cli: {
            flag: "stop", env: "LOCAL_RESPONSES_STOP",
            help: "text that ends a plain-text answer like an end-of-turn token (repeatable; env: comma-separated)"
        },
        apply(config, value) {
            config.stopSequences = value;
        }
    }),
    flashAttention: cliSetting({
        kind: boolean(),
        cli: {
            flag: "flash-attention", env: "LOCAL_RESPONSES_FLASH_ATTENTION",
            help: "flash attention on or off (default: off on the CPU, where it makes cold prompts cheaper and generated tokens "
                + "dearer; node-llama-cpp's auto on a GPU)"
        },
        apply(config, value) {
            config.flashAttention = value;
        }
    }),
    /** `draft` needs `draftModel` (settingRules.ts). */
    speculative: editorSetting({
        kind: choice<SpeculativeKind>(["off", "lookup", "draft"]),
        cli: {
            flag: "speculative", env: "LOCAL_RESPONSES_SPECULATIVE",
            help: "speculative decoding: off, lookup (predict from the prompt: answers that copy it, as edits do) or draft (a small model, "
                + "--draft-model); answers stay the same (default off)"
        },
        editor: {
            key: "speculative.mode", default: "off", reaction: "rebuild", restricted: true, scope: "machine-overridable", order: 26,
            description: "Speculative decoding (--speculative). The model checks every predicted token, so answers do not "
                + "change, only their speed. See docs/performance.md.",
            enumDescriptions: [
                "Every token evaluated one by one",
                "Predict the next tokens from the prompt: answers that copy it (edits, patches, rewrites) come faster",
                "Predict with a small draft model (localResponses.speculative.draftModel) with the same vocabulary"
            ]
        },
        apply(config, value) {
            config.speculative = value;
        }
    }),
    draftModel: editorSetting({
        kind: optionalText(),
        cli: {
            flag: "draft-model", env: "LOCAL_RESPONSES_DRAFT_MODEL",
            help: "GGUF draft model for --speculative draft (same vocabulary as --model); implies --speculative draft"
        },
        editor: {
            key: "speculative.draftModel", default: null, reaction: "rebuild", restricted: true, scope: "machine-overridable", order: 27,
            description: "GGUF file of the draft model for speculative mode draft (--draft-model): a small model with the same "
                + "vocabulary as the served one."
        },
        apply(config, value) {
            config.draftModelPath = value;
        }
    }),
    cacheTypeK: editorSetting({
        kind: choice<KeyCacheType>(keyCacheTypes),
        cli: {
            flag: "cache-type-k", env: "LOCAL_RESPONSES_CACHE_TYPE_K",
            help: "KV cache key type: f16 or q8_0 (half the key memory; on CPU cheaper prompts and tokens deep in the context; "
                + "models whose attention heads fill 32-value blocks) (default f16)"
        },
        editor: {
            key: "cacheTypeK", default: defaultKeyCacheType, reaction: "rebuild", restricted: true, scope: "machine-overridable", order: 25,
            description: "Type of the KV cache's keys (llama.cpp's --cache-type-k). See docs/api.md, \"Settings and what they cost\".",
            enumDescriptions: [
                "llama.cpp's default",
                "8-bit keys: half the key memory; on a CPU, prompts ~20 % and deep tokens ~10 % cheaper (models with 64- or 128-value "
                    + "attention heads; others keep f16)"
            ]
        },
        apply(config, value) {
            config.cacheTypeK = value;
        }
    }),
    busyPollBelowTokenMs: cliSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "busy-poll-below-ms", env: "LOCAL_RESPONSES_BUSY_POLL_BELOW_MS",
            help: "keep the event loop polling, not sleeping, while tokens come less than this many ms apart: faster streams of fast "
                + "models for a core while they last (default 2; 0 = never)"
        },
        apply(config, value) {
            config.busyPollBelowTokenMs = value;
        }
    })
};

/** `--stop '\n'` arrives as backslash-n from a shell: read the usual escapes. */
function unescapeStop(stop: string): string {
    return stop.replace(/\\([nrt\\])/g, (_match, code: string) => ({n: "\n", r: "\r", t: "\t", "\\": "\\"})[code]!);
}
