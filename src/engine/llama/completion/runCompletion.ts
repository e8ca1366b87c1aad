import type {LlamaCompletionResponse, Token} from "node-llama-cpp";
import {EngineError} from "../../EngineError.js";
import type {CompletionRequest, CompletionResult} from "../../completionTypes.js";
import {completionBeginningToken} from "../generation/plainCompletion.js";
import {repeatPenaltyOf} from "../generation/runGeneration.js";
import type {LeaseContext} from "../LlamaLease.js";
import {promptTooLong, type LoadedModel} from "../runtime/LoadedModel.js";
import {fimTokensOf} from "./fimTokens.js";
import {buildInfillPrompt} from "./infillPrompt.js";

/**
 * A raw completion on a loaded model with node-llama-cpp's `LlamaCompletion`: the prompt as given (or built with the
 * model's fill-in-the-middle tokens), no chat template. It runs on a sequence of the model's pool like a chat turn,
 * so it queues with them, reuses the longest prefix of its owner's partition only, and is aborted by an unload.
 */
export async function runCompletion(loaded: LoadedModel, request: CompletionRequest, engine: LeaseContext): Promise<CompletionResult> {
    const input = completionInput(loaded, request);
    const beginning = completionBeginningToken(loaded.model);
    const prompt = beginning == null ? input : [beginning, ...input];
    if (prompt.length >= loaded.info.contextSize)
        throw promptTooLong({promptTokens: prompt.length}, loaded.info);
    const partition = request.cachePartition ?? "";
    const lease = await loaded.pool.acquire(prompt, {partition, signal: request.signal});
    const controller = new AbortController();
    const onAbort = () => controller.abort(request.signal?.reason);
    request.signal?.addEventListener("abort", onAbort, {once: true});
    engine.activity.begin();
    try {
        const restored = await loaded.prepareSequence(lease, prompt, partition);
        const completion = await loaded.completionFor(lease.sequence);
        const clock = new GenerationClock(request.timeLimitMs, () => controller.abort());
        const running = completion.generateCompletionWithMeta(input as Token[], {
            signal: controller.signal,
            stopOnAbortSignal: true,
            maxTokens: Math.min(request.maxOutputTokens ?? Infinity, loaded.info.contextSize - prompt.length),
            disableContextShift: true,
            temperature: request.sampling?.temperature ?? 1,
            topP: request.sampling?.topP,
            topK: request.sampling?.topK,
            seed: request.sampling?.seed,
            repeatPenalty: repeatPenaltyOf(request.sampling ?? {}),
            customStopTriggers: request.stopSequences?.length ? request.stopSequences : undefined,
            onToken: (tokens) => {
                clock.tokens(tokens.length);
                engine.activity.tokens(tokens.length);
            },
            onTextChunk: (text) => {
                clock.text(text);
                request.onText?.(text);
            }
        });
        loaded.active.set(controller, running.catch(() => undefined));
        const response = await running;
        lease.settle();
        return {
            ...stopOf(response, clock.timedOut, request.signal?.aborted === true),
            text: response.response,
            usage: {
                inputTokens: prompt.length, cachedTokens: Math.max(lease.sharedPrefixLength, restored.tokens), outputTokens: clock.generated
            },
            timings: clock.timings()
        };
    } finally {
        request.signal?.removeEventListener("abort", onAbort);
        loaded.active.delete(controller);
        engine.activity.end();
        lease.release();
    }
}

/** The tokens `LlamaCompletion` is given: the prompt, or the fill-in-the-middle prompt when a suffix is given. */
function completionInput(loaded: LoadedModel, request: CompletionRequest): number[] {
    const tokenize = (text: string) => loaded.model.tokenize(text, false, "trimLeadingSpace") as number[];
    if (request.suffix == null)
        return tokenize(request.prompt);
    const fim = fimTokensOf(loaded.model);
    if (fim == null)
        throw new EngineError("unsupported", `The model '${loaded.info.id}' has no fill-in-the-middle tokens ` +
            "(GGUF tokenizer.ggml.fim_pre/suf/mid): it cannot fill in between a prompt and a suffix.", {param: "suffix"});
    return buildInfillPrompt({prefix: request.prompt, suffix: request.suffix, extra: request.extra}, fim, tokenize);
}

function stopOf(response: LlamaCompletionResponse, timedOut: boolean,
    aborted: boolean): Pick<CompletionResult, "stopReason" | "stopSequence"> {
    const {metadata} = response;
    if (metadata.stopReason === "customStopTrigger")
        return {stopReason: "stop", stopSequence: metadata.customStopTrigger.filter((part) => typeof part === "string").join("")};
    if (metadata.stopReason === "maxTokens" || timedOut)
        return {stopReason: "length"};
    return {stopReason: metadata.stopReason === "abort" || aborted ? "abort" : "stop"};
}

/**
 * When the first token came and how many followed; with a time limit, ends the generation once the limit has passed
 * and a newline was generated (llama.cpp's `t_max_predict_ms`: a code completion stops at the end of a line).
 */
class GenerationClock {
    public generated = 0;
    public timedOut = false;
    private readonly started = performance.now();
    private firstToken: number | null = null;
    private newline = false;

    public constructor(private readonly limitMs: number | undefined, private readonly stop: () => void) {}

    public tokens(count: number): void {
        this.firstToken ??= performance.now();
        this.generated += count;
    }

    public text(text: string): void {
        this.newline ||= text.includes("\n");
        if (this.limitMs != null && this.newline && !this.timedOut && performance.now() - this.started > this.limitMs) {
            this.timedOut = true;
            this.stop();
        }
    }

    public timings(): CompletionResult["timings"] {
        const now = performance.now();
        const first = this.firstToken ?? now;
        return {promptMs: first - this.started, generationMs: now - first};
    }
}
