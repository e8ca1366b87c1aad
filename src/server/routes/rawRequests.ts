import type {Request, Response} from "express";
import type {CompletionRequest, CompletionResult, RawEngine, RawRequestRouting} from "../../engine/completionTypes.js";
import {rawEngine} from "../../engine/completionTypes.js";
import type {ChatEngine} from "../../engine/types.js";
import type {ApiError} from "../../protocol/errors.js";
import {toApiError} from "../../responses/engineErrors.js";
import {parseKeepAlive} from "../../responses/keepAlive.js";
import type {ApiProtocol} from "../../responses/pipeline/preparedResponse.js";
import type {ServerMetrics} from "../metrics.js";
import {SseStream} from "../sse.js";
import {disconnectSignal} from "./foreground.js";

/**
 * What the routes of raw completion, infill and embeddings share: the engine's raw side, the caller's prompt-cache
 * partition (the owner's, as chat requests get it), keep_alive, the client's disconnect as the signal, and metrics.
 */
export type RawRouteOptions = {
    engine: ChatEngine,
    /** Whose cached prompts a request of `owner` may reuse (`ResponsesService.cachePartition`). */
    cachePartition: (owner: string) => string,
    metrics?: ServerMetrics,
    streamKeepAliveMs?: number,
    streamWriteTimeoutMs?: number
};

/** A raw request's engine and routing for the caller of `req`, refused (400) where the engine has no raw side. */
export type RawRoute = {engine: RawEngine, model: string, routing: RawRequestRouting};

export function rawRouting(options: RawRouteOptions, req: Request, res: Response,
    asked: {model: string | null, keepAlive: unknown}): RawRoute {
    const model = servedName(options.engine, asked.model);
    return {
        engine: rawEngine(options.engine, model),
        model,
        routing: {
            model: asked.model ?? undefined,
            cachePartition: options.cachePartition(req.owner),
            keepAliveMs: parseKeepAlive(asked.keepAlive as number | string | null | undefined),
            usedBy: req.owner,
            signal: disconnectSignal(res)
        }
    };
}

/** The name an answer reports: the library's id for the name asked (or its default), else the one model's. */
function servedName(engine: ChatEngine, requested: string | null): string {
    if (engine.library != null)
        return engine.library.resolve(requested);
    return engine.model?.id ?? requested ?? "";
}

/** Counts a finished completion in `/metrics` and `/v1/status` under its protocol. */
export function recordCompletion(options: RawRouteOptions, req: Request, res: Response,
    done: {protocol: ApiProtocol, model: string, result: CompletionResult}): void {
    const {usage, timings, stopReason} = done.result;
    res.locals.usage = {input: usage.inputTokens, output: usage.outputTokens};
    options.metrics?.recordGeneration({
        protocol: done.protocol, model: done.model, owner: req.owner,
        inputTokens: usage.inputTokens, cachedTokens: usage.cachedTokens, outputTokens: usage.outputTokens,
        timeToFirstTokenMs: usage.outputTokens > 0 ? timings.promptMs : null, durationMs: timings.promptMs + timings.generationMs,
        status: stopReason === "length" ? "incomplete" : stopReason === "abort" ? "cancelled" : "completed"
    });
}

/**
 * Runs a completion streamed as `data:` lines: a refusal before the first byte (a suffix to a model without FIM tokens,
 * a full queue, a prompt too long) keeps its own status, thrown to the error handler; a failure after it is the
 * stream's last `data:` line, in the protocol's shape (`errorBody`).
 */
export async function streamCompletion(options: RawRouteOptions, res: Response, run: (send: (body: unknown) => void) => Promise<void>,
    errorBody: (error: ApiError) => unknown): Promise<void> {
    const sse = new SseStream(res, {keepAliveMs: options.streamKeepAliveMs, writeTimeoutMs: options.streamWriteTimeoutMs});
    try {
        // A string is sent as it is (`[DONE]`); anything else as JSON.
        await run((body) => sse.sendData(typeof body === "string" ? body : JSON.stringify(body), true));
    } catch (error) {
        if (!sse.started) {
            sse.stopKeepAlive();
            throw error;
        }
        if (!res.writableEnded)
            sse.sendData(JSON.stringify(errorBody(toApiError(error))), false);
    } finally {
        if (sse.started)
            sse.end();
    }
}

/** The completion of a request with its routing. */
export function completeWith(engine: RawEngine, routing: RawRequestRouting, completion: Omit<CompletionRequest, keyof RawRequestRouting>,
    onText?: (text: string) => void): Promise<CompletionResult> {
    return engine.complete({...routing, ...completion, onText});
}
