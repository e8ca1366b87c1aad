import os from "node:os";

/**
 * Defaults both engines (`LlamaEngineOptions`, `UpstreamEngineOptions`) and the sequence pool share. The host
 * configuration, the CLI help and the editor's settings take them from here (test/host/packageSettingsDefaults.test.ts).
 */

/** Parallel sequences of the local model (generations batched together); slots per upstream that does not say. */
export const defaultParallel = 4;

/** Requests that may wait for a sequence (or an upstream's slot) before new ones get 503 `queue_full`. */
export const defaultQueueLimit = 64;

/** Context tokens per sequence: the local model's trained context is capped at this; an upstream that does not say gets it. */
export const defaultContextSize = 8192;

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
