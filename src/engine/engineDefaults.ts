import os from "node:os";
import type {Backend} from "./models/prebuiltBinaries.js";
import type {GpuChoice} from "./types.js";

/**
 * Defaults both engines (`LlamaEngineOptions`, `UpstreamEngineOptions`) and the sequence pool share. The host
 * configuration, the CLI help and the editor's settings take them from here (test/host/packageSettingsDefaults.test.ts).
 */

/**
 * The `gpu` setting's default: node-llama-cpp's best backend among the builds installed (see backendChoice.ts), the
 * model's layers and context fitted to the free VRAM; the CPU where there is no GPU, exactly as `false` runs.
 */
export const defaultGpu: GpuChoice = "auto";

/** Parallel sequences of the local model (generations batched together); slots per upstream that does not say. */
export const defaultParallel = 4;

/** Requests that may wait for a sequence (or an upstream's slot) before new ones get 503 `queue_full`. */
export const defaultQueueLimit = 64;

/**
 * Context tokens per request of an upstream that does not say; the least context per sequence the local model's plan
 * gives when only the sequences are set (see `planContext`).
 */
export const defaultContextSize = 8192;

/**
 * KV cache tokens the local model's default plan allocates in all (see `planContext`): enough for one sequence to hold
 * a coding agent's prompt (Codex sends 13–18k tokens on its first turn, more on later ones).
 */
export const defaultContextBudgetTokens = 32768;

export type ContextPlan = {contextSize: number, parallel: number};

/**
 * The local model's context per sequence and number of sequences, from what was set (null: not set).
 * - Neither: a sequence gets the model's trained context, at most `defaultContextBudgetTokens`, and the budget's rest
 *   makes more sequences, at most `defaultParallel`: 4 × 2048 for a 2k model, 4 × 8192 for an 8k one, 2 × 16384,
 *   1 × 32768 for a model trained on 32k or more. The cache never costs more than 32768 tokens' worth, which is what
 *   4 × 8192 cost when that was the default, and a coding agent's prompt fits whenever the model can take it.
 * - The context only: as many sequences as the budget holds, at least 1, at most `defaultParallel`.
 * - The sequences only: each gets its share of the budget, at least `defaultContextSize`, at most the trained context.
 */
export function planContext(trainContextSize: number, set: {contextSize: number | null, parallel: number | null}): ContextPlan {
    const sequencesFor = (contextSize: number) => Math.max(1,
        Math.min(defaultParallel, Math.floor(defaultContextBudgetTokens / contextSize)));
    if (set.contextSize != null)
        return {contextSize: set.contextSize, parallel: set.parallel ?? sequencesFor(set.contextSize)};
    if (set.parallel != null) {
        const share = Math.max(defaultContextSize, Math.floor(defaultContextBudgetTokens / set.parallel));
        return {contextSize: Math.min(trainContextSize, share), parallel: set.parallel};
    }
    const contextSize = Math.min(trainContextSize, defaultContextBudgetTokens);
    return {contextSize, parallel: sequencesFor(contextSize)};
}

/**
 * CPU threads for generation: cores − 1, at least 1 (node-llama-cpp's own default oversubscribes small machines: the
 * JavaScript thread that samples and streams each token needs a core of its own).
 */
export function defaultThreads(): number {
    return Math.max(1, os.availableParallelism() - 1);
}

/** CPU threads for prompt evaluation: every core (a prompt batch keeps them all busy; see BatchThreads). */
export function defaultPromptThreads(): number {
    return Math.max(1, os.availableParallelism());
}

/** The threads node-llama-cpp's backend is started with: the most either kind of batch evaluates with. */
export function backendThreads(options: {threads?: number, promptThreads?: number}): number {
    return Math.max(options.threads ?? defaultThreads(), options.promptThreads ?? defaultPromptThreads());
}

/**
 * The context settings a backend gets unless set (`--batch-size`, `--flash-attention`); the one place they are chosen.
 * Threads and parallel sequences are the same on every backend: the CPU threads still sample each token (and run the
 * layers a GPU could not take), and `planContext` sizes the sequences by the KV cache's budget, which a GPU does not change.
 *
 * `batchSize`: tokens per native evaluation, the largest prompt step, and, since node-llama-cpp makes llama.cpp's
 * micro-batch as large as the batch, the widest matrix a step multiplies. On the CPU a narrow batch evaluates prompts
 * faster: a wide one's activations outgrow the core's cache. node-llama-cpp alone, 2-core machine, a cold 1,600-token
 * prompt, tokens/s against node-llama-cpp's and `llama-bench`'s 512 (`npm run bench:batch`, 2026-12-03, docs/api.md),
 * 1 thread / 2 threads:
 *
 * | batch | SmolLM2-135M | Qwen2.5-0.5B | stories260K |
 * |---|---|---|---|
 * | 64 | 1.22 / 1.34 | 1.18 / 1.30 | 1.14 / 0.73 |
 * | 128 | 1.22 / 1.30 | 1.14 / 1.26 | 1.16 / 1.09 |
 * | 256 | 1.05 / 1.22 | 1.09 / 1.19 | 1.15 / 1.17 |
 *
 * 128 is within a few hundredths of the best everywhere and never slower than 512; 64 loses on a tiny model, where
 * each batch's fixed cost (two threads meeting) is most of it. Deeper in a prompt the step's time bound makes steps
 * narrower still (PromptPrefill). On a GPU, whose matrix units want width, node-llama-cpp's own: 512 (its
 * `getDefaultContextBatchSize`, llama.cpp's micro-batch), until a measurement says otherwise.
 *
 * `flashAttention`: off on the CPU, where it makes a long cold prompt cheaper and every generated token dearer
 * (llama-bench pp4096 on stories260K: ~450–980 tokens/s without, ~100–190 with; docs/api.md). On a GPU, "auto":
 * node-llama-cpp's own default, llama.cpp turning it on where the model and the device support it.
 */
export type BackendDefaults = {batchSize: number, flashAttention: boolean | "auto"};

export function backendDefaults(backend: Backend): BackendDefaults {
    return backend === "cpu" ? {batchSize: 128, flashAttention: false} : {batchSize: 512, flashAttention: "auto"};
}
