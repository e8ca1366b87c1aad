import {rawEngine, type CompletionResult, type RawEngine, type RawRequestRouting} from "../engine/completionTypes.js";
import type {ChatEngine} from "../engine/types.js";
import {parseKeepAlive} from "../responses/keepAlive.js";
import type {GenerationStats} from "../responses/pipeline/GenerationRunner.js";
import type {ApiProtocol} from "../responses/pipeline/preparedResponse.js";

/**
 * What the services of raw completion, infill and embeddings share: the engine's raw side, the caller's prompt-cache
 * partition (the owner's, as chat requests get it), keep_alive, and the count of each finished request.
 */
export type RawRequestsOptions = {
    engine: ChatEngine,
    /** Whose cached prompts a request of `owner` may reuse (`ResponsesService.cachePartition`). */
    cachePartition: (owner: string) => string,
    /** Each finished request, for `/metrics` and `/v1/status`. */
    onFinished?: (stats: GenerationStats) => void
};

/** A request's engine, the model name its answer reports, and how it reaches that model. */
export type RawRoute = {engine: RawEngine, model: string, routing: RawRequestRouting, owner: string};

/** What the request log counts for a request. */
export type RawUsage = {input: number, output: number};

export class RawRequests {
    public constructor(private readonly options: RawRequestsOptions) {}

    /** The engine and routing for `owner`'s request, refused (400) where the engine has no raw side (the upstream engine). */
    public route(owner: string, asked: {model: string | null, keepAlive: unknown}, signal: AbortSignal): RawRoute {
        const model = this.servedName(asked.model);
        return {
            engine: rawEngine(this.options.engine, model),
            model,
            owner,
            routing: {
                model: asked.model ?? undefined,
                cachePartition: this.options.cachePartition(owner),
                keepAliveMs: parseKeepAlive(asked.keepAlive as number | string | null | undefined),
                usedBy: owner,
                signal
            }
        };
    }

    /** Counts a finished completion under its protocol; returns what the request log counts. */
    public completed(route: RawRoute, protocol: ApiProtocol, result: CompletionResult): RawUsage {
        const {usage, timings, stopReason} = result;
        this.options.onFinished?.({
            protocol, model: route.model, owner: route.owner,
            inputTokens: usage.inputTokens, cachedTokens: usage.cachedTokens, outputTokens: usage.outputTokens,
            timeToFirstTokenMs: usage.outputTokens > 0 ? timings.promptMs : null, durationMs: timings.promptMs + timings.generationMs,
            status: stopReason === "length" ? "incomplete" : stopReason === "abort" ? "cancelled" : "completed"
        });
        return {input: usage.inputTokens, output: usage.outputTokens};
    }

    /** Counts a finished embedding request (input tokens only). */
    public embedded(route: RawRoute, inputTokens: number, durationMs: number): RawUsage {
        this.options.onFinished?.({
            protocol: "embeddings", model: route.model, owner: route.owner, inputTokens, cachedTokens: 0, outputTokens: 0,
            timeToFirstTokenMs: null, durationMs, status: "completed"
        });
        return {input: inputTokens, output: 0};
    }

    /** The name an answer reports: the library's id for the name asked (or its default), else the one model's. */
    private servedName(requested: string | null): string {
        const {engine} = this.options;
        if (engine.library != null)
            return engine.library.resolve(requested);
        return engine.model?.id ?? requested ?? "";
    }
}
