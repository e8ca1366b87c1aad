import type {LlamaContextSequence, Token} from "node-llama-cpp";
import {EngineError} from "../../EngineError.js";
import type {PromptProgress} from "../../types.js";

export type PromptPrefillOptions = {
    /** Largest step, in tokens: the context's batch size (a larger step only queues more behind it). */
    maxStepTokens: number,
    /**
     * How long one step should take, in milliseconds; the step size follows the measured rate, and a step may take up
     * to twice this to hold `efficientStepTokens`. It bounds how long an abort waits for the step in flight, and how
     * long other sequences' tokens wait behind it. Defaults to `defaultPromptStepMs`.
     */
    targetStepMs?: number,
    signal?: AbortSignal,
    onProgress?: (progress: PromptProgress) => void
};

/** A step of about half a second: an abort frees the sequence well inside 2 s, at no measurable cost in speed. */
export const defaultPromptStepMs = 500;

/** The first step, before any rate is known: small, so that the first abort check comes soon on any model. */
const firstStepTokens = 64;
const minStepTokens = 16;
/**
 * Each step has a fixed cost besides its tokens': a pass over the weights and over the whole KV cache. Deep in a long
 * prompt, where attention makes every token slow, a half-second step holds few tokens and that cost shows (synthetic
 * SmolLM2-135M, 2 threads, depth 8,000–16,000: steps of 16 tokens took 1.16–1.22× the time of steps of 64, steps of
 * 32 1.09–1.13×; 64 and 256 were even, docs/api.md). So a step holds this many tokens when they fit in twice the
 * target, still well inside 2 s.
 */
const efficientStepTokens = 64;

/**
 * The next step, from the last one's rate (attention grows with depth, so it is re-measured on every step): its
 * `size`, what the target time holds, at least `efficientStepTokens` if they fit in twice the target, never fewer than
 * `minStepTokens` nor more than `maxStepTokens`; and the `most` it may grow to when aligned (`alignedStepTokens`), what
 * twice the target holds, up to `maxStepTokens`.
 */
export function nextStepRoom(last: {tokens: number, ms: number}, targetStepMs: number,
    maxStepTokens: number): {size: number, most: number} {
    const tokensIn = (ms: number) => Math.floor(last.tokens * ms / Math.max(1, last.ms));
    const twice = tokensIn(2 * targetStepMs);
    const size = Math.min(maxStepTokens, Math.max(minStepTokens, tokensIn(targetStepMs), Math.min(efficientStepTokens, twice)));
    return {size, most: Math.min(maxStepTokens, Math.max(size, twice))};
}

/**
 * How many tokens a step of about `size` from `position` holds so that it ends on a multiple of the largest power of
 * two within `size`: the next multiple when the step may grow that far (`most`), else the one before when that keeps
 * at least half the step; else `size` as it is (the next step aligns). A step narrower than `efficientStepTokens` stays
 * as it is: aligning a step of w tokens saves w/2 masked cells, little deep in a prompt where such steps come, and
 * rounding ~60 down to 32 there doubled the steps (and their passes over the weights) of a 6,000-token prompt.
 *
 * llama.cpp evaluates a batch's attention over the cache's cells up to its last token rounded up to a multiple of 256
 * (it keeps the graph's shape for reuse), the cells past the end masked but computed. Steps of 128 that ended half-way
 * between such multiples, as they did after a first step of 64, computed twice the masked cells that node-llama-cpp's
 * own batches of 128 do (theirs end on multiples of 128): a 1,600-token prompt took 1.035× the time, all of it in the
 * native decodes (synthetic SmolLM2-135M with the Qwen2 vocabulary, 1 thread, in one process, 2026-12-06). With their
 * ends aligned, steps of 64, 64, then 128 took 1.000×.
 */
export function alignedStepTokens(position: number, size: number, most: number): number {
    if (size < efficientStepTokens)
        return size;
    const quantum = 2 ** Math.floor(Math.log2(size));
    const later = Math.ceil((position + size) / quantum) * quantum - position;
    if (later <= most)
        return later;
    const earlier = Math.floor((position + size) / quantum) * quantum - position;
    return earlier >= size / 2 ? earlier : size;
}

/**
 * Evaluates a prompt on `sequence` in steps that an abort can stop between, up to its last step.
 *
 * node-llama-cpp queues a whole prompt as one decode and splits it into batches natively, with no abort check
 * between them: a 17k-token prompt on a full-size model kept its sequence busy for minutes after the client had gone.
 * Evaluated here step by step, the prompt is the same tokens in the same cells; `LlamaChat.generateResponse` (or
 * `LlamaCompletion`) then finds them in the sequence (it keeps the longest common prefix) and evaluates the rest, at
 * most one step and the last token, in the decode whose logits it samples from. Leaving that last step to it saves a
 * decode, whose fixed cost shows when there is little to evaluate: a warm turn's ~75 new tokens took three decodes
 * (64, 10, then the last token), now one. The sequence's token meter counts these evaluations as input, as it would
 * have counted LlamaChat's.
 */
export async function prefillPrompt(sequence: LlamaContextSequence, prompt: readonly number[],
    options: PromptPrefillOptions): Promise<PromptProgress> {
    const {signal, onProgress, maxStepTokens} = options;
    const targetStepMs = options.targetStepMs ?? defaultPromptStepMs;
    const body = prompt.slice(0, -1) as Token[];
    const {firstDifferentIndex} = sequence.compareContextTokens(body);
    if (firstDifferentIndex < sequence.nextTokenIndex)
        await sequence.eraseContextTokenRanges([{start: firstDifferentIndex, end: sequence.nextTokenIndex}]);
    const reused = sequence.nextTokenIndex;
    let position = reused;
    const firstStep = Math.min(firstStepTokens, maxStepTokens);
    let step = alignedStepTokens(position, firstStep, Math.min(maxStepTokens, 2 * firstStep));
    const progress = (): PromptProgress => ({evaluated: position, total: prompt.length, reused});
    onProgress?.(progress());
    while (prompt.length - position > step) {
        throwIfAborted(signal);
        const chunk = body.slice(position, position + step);
        const started = performance.now();
        await sequence.evaluateWithoutGeneratingNewTokens(chunk);
        const ms = performance.now() - started;
        position += chunk.length;
        onProgress?.(progress());
        const {size, most} = nextStepRoom({tokens: chunk.length, ms}, targetStepMs, maxStepTokens);
        step = alignedStepTokens(position, size, most);
    }
    throwIfAborted(signal);
    return progress();
}

function throwIfAborted(signal: AbortSignal | undefined): void {
    if (signal?.aborted)
        throw new EngineError("aborted", "The generation was aborted during prompt evaluation.");
}
