import {defaultContextSize, defaultParallel, defaultQueueLimit} from "../engineDefaults.js";
import {EngineError} from "../EngineError.js";
import {GenerationActivity} from "../GenerationActivity.js";
import {Emitter} from "../../protocol/Emitter.js";
import {generateOnLease} from "../generateOnLease.js";
import type {HostedEngine} from "../HostedEngine.js";
import type {CompletionRequest, CompletionResult, EmbeddingRequest, EmbeddingResult, RawEngine} from "../completionTypes.js";
import type {RawRequestRouting} from "../completionTypes.js";
import type {
    ChatEngine, ChatTurn, EngineLease, EngineState, EngineStats, GenerationRequest, GenerationResult, GenerationSummary, ModelInfo,
    PromptShape, ToolSpec
} from "../types.js";
import {estimatePromptTokens, toChatCompletionsBody, toChatMessages, toChatTools} from "./upstreamChatRequest.js";
import {streamCompletion} from "./streamCompletion.js";
import {completeUpstream, embedUpstream, type RawUpstreamOptions} from "./upstreamRaw.js";
import {Upstream} from "./Upstream.js";
import {discoverModel, startHealthChecks} from "./upstreamProbes.js";
import {causeText, UpstreamConnectError} from "./upstreamErrors.js";
import {UpstreamRouter} from "./UpstreamRouter.js";
import {UpstreamTokenCounter} from "./upstreamTokenCount.js";
import {prefixKey} from "./prefixKey.js";

export type UpstreamEngineOptions = {
    /** Base URLs of OpenAI-compatible servers (with or without a trailing `/v1`). */
    urls: string[],
    /** Sent as `Authorization: Bearer` to every upstream; never logged. */
    apiKey?: string | null,
    /** Name clients see (`--model-alias`); defaults to the upstream model's name. */
    alias?: string | null,
    /**
     * Seconds an upstream may stay silent (before its headers, between chunks) before the request fails with 504.
     * Defaults to `defaultUpstreamTimeoutSeconds`.
     */
    timeoutSeconds?: number,
    /** Milliseconds between health checks. Defaults to `defaultUpstreamHealthIntervalMs`. */
    healthIntervalMs?: number,
    /** Context tokens per request when the upstream does not say. Defaults to `defaultContextSize` (8192). */
    contextSize?: number | null,
    /** Slots per upstream when it does not say (llama-server's `/props` does). Defaults to `defaultParallel` (4). */
    parallel?: number,
    /** Requests beyond every upstream's slots that may be outstanding before new ones get 503. Defaults to `defaultQueueLimit` (64). */
    queueLimit?: number,
    stopSequences?: readonly string[],
    /** Where its generations are counted live; a routed engine shares its library's. Defaults to its own. */
    activity?: GenerationActivity,
    log?: (line: string) => void
};

/** Seconds an upstream may stay silent before a request fails with 504 (`--upstream-timeout-secs`). */
export const defaultUpstreamTimeoutSeconds = 600;
/** Milliseconds between health checks of each upstream. */
export const defaultUpstreamHealthIntervalMs = 5000;

/**
 * The engine over one or more OpenAI-compatible Chat Completions servers (vLLM, SGLang, llama-server,
 * Ollama…). The Responses layer above it does not know the difference from the local engine.
 *
 * - `acquire` never waits: it picks an upstream (affinity key, else least outstanding requests) and counts
 *   the request there; waiting for a slot happens in the upstream's own queue. A lease's `promptTokens` is an
 *   estimate (~4 characters a token) and `cachedPrefixTokens` is 0: the exact figures come with the upstream's
 *   usage at the end of the generation.
 * - A request that cannot reach its upstream, or that gets 429/503 before any output, is sent to another
 *   available upstream; a failure after output has started ends the generation with that error.
 */
export class UpstreamEngine implements ChatEngine, RawEngine, HostedEngine {
    public readonly kind = "upstream";
    public readonly activity: GenerationActivity;
    private readonly upstreams: Upstream[];
    private readonly router: UpstreamRouter;
    private readonly stateChanges = new Emitter<EngineState>();
    private readonly generations = new Emitter<GenerationSummary>();
    private currentState: EngineState = "unloaded";
    private info: ModelInfo | null = null;
    private upstreamModel = "";
    /** Every model name the upstreams listed when it connected. */
    private listed = new Set<string>();
    /** The context size the upstreams report for each listed model (null: they do not say). */
    private listedContexts: Record<string, number | null> = {};
    private healthTimer: NodeJS.Timeout | null = null;
    private readonly tokenCounter = new UpstreamTokenCounter();

    public constructor(private readonly options: UpstreamEngineOptions) {
        if (options.urls.length === 0)
            throw new Error("The upstream engine needs at least one upstream URL.");
        this.activity = options.activity ?? new GenerationActivity();
        this.upstreams = options.urls.map((url) => new Upstream(url, options.apiKey ?? null));
        this.router = new UpstreamRouter(this.upstreams);
    }

    public get state(): EngineState {
        return this.currentState;
    }

    public get model(): ModelInfo | null {
        return this.info;
    }

    /** The name sent upstream as `model`. */
    public get upstreamModelName(): string {
        return this.upstreamModel;
    }

    /** While connected: the served name and every name the upstreams list (a routed engine sends each its requests). */
    public get servedModelNames(): readonly string[] {
        return this.info == null ? [] : [...new Set([this.info.id, ...this.listed])];
    }

    /**
     * The context of one of `servedModelNames`: the operator's `contextSize`, else what the upstreams report for that
     * model, else the connected model's. Each model an upstream lists has its own (a 32k coder beside a 128k chat model).
     */
    public servedModelContext(name: string): number | null {
        if (this.info == null)
            return null;
        return this.options.contextSize ?? this.listedContexts[this.modelFor(name)] ?? this.info.contextSize;
    }

    public onStateChange(listener: (state: EngineState) => void): () => void {
        return this.stateChanges.on(listener);
    }

    public onGeneration(listener: (summary: GenerationSummary) => void): () => void {
        return this.generations.on(listener);
    }

    /** Connects: finds the model (`name`, else the first upstream's first), the context size and slots, and starts health checks. */
    public async load(name: string): Promise<ModelInfo> {
        this.setState("loading");
        try {
            const found = await discoverModel(this.upstreams, name === "" ? null : name);
            this.upstreamModel = found.model;
            this.listed = new Set(found.listed);
            this.listedContexts = found.listedContexts;
            const contextSize = this.options.contextSize ?? found.contextSize ?? defaultContextSize;
            this.info = {
                id: this.options.alias ?? found.model,
                path: this.upstreams.map((upstream) => upstream.label).join(","),
                contextSize,
                sequences: this.totalSlots(),
                trainContextSize: found.contextSize ?? contextSize,
                chatWrapper: `upstream ${found.model}`
            };
            clearInterval(this.healthTimer ?? undefined);
            this.healthTimer = startHealthChecks(this.upstreams, this.options.healthIntervalMs ?? defaultUpstreamHealthIntervalMs,
                this.options.log);
            this.setState("ready");
            this.options.log?.(
                `upstream: ${found.model} on ${this.upstreams.map((upstream) => `${upstream.label} (${upstream.state})`).join(", ")}; `
                    + `context ${contextSize}`
            );
            return this.info;
        } catch (error) {
            this.setState("failed");
            throw error instanceof EngineError ? error : new EngineError("load_failed", causeText(error));
        }
    }

    public async unload(): Promise<void> {
        if (this.healthTimer != null)
            clearInterval(this.healthTimer);
        this.healthTimer = null;
        this.info = null;
        this.setState("unloaded");
    }

    public async dispose(): Promise<void> {
        await this.unload();
        for (const upstream of this.upstreams)
            upstream.close();
    }

    /** Nothing is kept on this machine: the upstreams' own KV caches are theirs to partition (docs/api.md "Isolation"). */
    public forgetPromptStates(): Promise<number> {
        return Promise.resolve(0);
    }

    public stats(): EngineStats {
        const busy = this.upstreams.reduce((sum, upstream) => sum + upstream.outstanding, 0);
        const total = this.totalSlots();
        return {
            sequencesBusy: Math.min(busy, total),
            sequencesTotal: total,
            queueDepth: Math.max(0, busy - total),
            queueLimit: this.options.queueLimit ?? defaultQueueLimit,
            upstreams: this.upstreams.map((upstream) => upstream.stats())
        };
    }

    /** The upstream's own count where it offers one (vLLM, SGLang, llama-server), else an estimate (~4 characters a token). */
    public async countPromptTokens(turns: ChatTurn[], tools: ToolSpec[] = [], model?: string): Promise<number> {
        const upstream = this.router.pick(undefined);
        const counted = upstream == null ? null
            : await this.tokenCounter.count(upstream, this.modelFor(model), toChatMessages(turns),
                tools.length === 0 ? undefined : toChatTools(tools));
        return counted ?? estimatePromptTokens(turns, tools);
    }

    public generate(request: GenerationRequest): Promise<GenerationResult> {
        return generateOnLease(this, request);
    }

    public async acquire(turns: ChatTurn[], tools: ToolSpec[], signal?: AbortSignal, shape: PromptShape = {}): Promise<EngineLease> {
        if (this.currentState !== "ready")
            throw new EngineError("not_ready", "The upstream engine is not connected.");
        if (signal?.aborted)
            throw new EngineError("aborted", "The request was aborted before it started.");
        const stats = this.stats();
        if (stats.queueDepth >= stats.queueLimit)
            throw new EngineError("queue_full",
                `Every upstream slot is busy and ${stats.queueDepth} requests already wait; retry shortly.`);
        const promptTokens = estimatePromptTokens(turns, tools);
        const contextSize = this.servedModelContext(shape.model ?? this.upstreamModel) ?? Infinity;
        if (promptTokens > contextSize * 2)
            // Only a clear overflow is refused here (the estimate is rough); the upstream refuses the rest itself.
            throw new EngineError("context_overflow",
                `The input (about ${promptTokens} tokens) does not fit the upstream's context of ${contextSize} tokens.`,
                {overflow: {promptTokens, contextSize}});
        // Routing is partitioned by the caller's cache partition (its key, unless the operator shares the cache): a key's
        // prefix is never steered to the server that holds another key's, which would make a cache hit a probe.
        const key = `${shape.cachePartition ?? ""}|${shape.affinityKey ?? prefixKey(turns)}`;
        const wentBefore = this.router.lastUpstreamOf(key);
        let upstream = this.router.pickOrThrow(key);
        upstream.outstanding++;
        let released = false;
        return {
            promptTokens,
            cachedPrefixTokens: 0,
            generate: async (request) => {
                const result = await this.run(upstream, key, request, (next) => {
                    upstream.outstanding--;
                    next.outstanding++;
                    upstream = next;
                });
                // The upstream's cache is shared by every key routed to it: its cached_tokens are passed on only where
                // this partition's own earlier request went to the same server (else the hit may be another key's).
                if (wentBefore !== upstream)
                    result.usage.cachedTokens = 0;
                return result;
            },
            release: () => {
                if (released)
                    return;
                released = true;
                upstream.outstanding--;
            }
        };
    }

    /** Raw completion and fill in the middle on the upstream's own endpoints (`upstreamRaw.ts`). */
    public complete(request: CompletionRequest): Promise<CompletionResult> {
        return this.onUpstream(request, (upstream, options) => completeUpstream(upstream, request, options));
    }

    /** Embeddings on the upstream's own `/v1/embeddings`. */
    public embed(request: EmbeddingRequest): Promise<EmbeddingResult> {
        return this.onUpstream(request, (upstream, options) => embedUpstream(upstream, request, options));
    }

    /** A raw request on one upstream, counted there and in the live activity as a generation is; no retry elsewhere. */
    private async onUpstream<T>(request: RawRequestRouting,
        run: (upstream: Upstream, options: RawUpstreamOptions) => Promise<T>): Promise<T> {
        if (this.currentState !== "ready")
            throw new EngineError("not_ready", "The upstream engine is not connected.");
        // Partitioned as generations are: a key's prompts never steered to where another key's are cached.
        const upstream = this.router.pickOrThrow(`${request.cachePartition ?? ""}|raw`);
        upstream.outstanding++;
        upstream.requests++;
        this.activity.begin();
        try {
            return await run(upstream, {model: this.modelFor(request.model),
                timeoutMs: (this.options.timeoutSeconds ?? defaultUpstreamTimeoutSeconds) * 1000});
        } catch (error) {
            if (!(error instanceof EngineError && error.kind === "aborted"))
                upstream.recordError(error instanceof Error ? error.message : String(error));
            throw error;
        } finally {
            upstream.outstanding--;
            this.activity.end();
        }
    }

    private async run(first: Upstream, key: string, request: GenerationRequest,
        moveTo: (next: Upstream) => void): Promise<GenerationResult> {
        const stop = [...this.options.stopSequences ?? [], ...request.stopSequences ?? []];
        const body = toChatCompletionsBody(request, {model: this.modelFor(request.model), stop});
        const started = performance.now();
        const tried = new Set<Upstream>();
        let upstream = first;
        this.activity.begin();
        try {
            for (;;) {
                upstream.requests++;
                try {
                    const {result, upstreamUsage} = await streamCompletion(upstream, body, {
                        signal: request.signal,
                        timeoutMs: (this.options.timeoutSeconds ?? defaultUpstreamTimeoutSeconds) * 1000,
                        maxToolCalls: request.maxToolCalls,
                        onEvent: request.onEvent,
                        onDeltas: (count) => this.activity.tokens(count)
                    });
                    upstream.markUp();
                    if (!upstreamUsage)
                        result.usage.inputTokens = estimatePromptTokens(request.turns, request.tools);
                    this.report(result, started, request.model);
                    return result;
                } catch (error) {
                    const retryable = error instanceof UpstreamConnectError
                        || (error instanceof EngineError && error.kind === "upstream_busy");
                    if (error instanceof EngineError && error.kind === "aborted")
                        throw error;
                    upstream.recordError(error instanceof Error ? error.message : String(error));
                    if (error instanceof UpstreamConnectError || (error instanceof EngineError && error.kind === "upstream_unavailable"))
                        upstream.markDown(error.message);
                    if (error instanceof EngineError && error.kind === "upstream_busy") {
                        upstream.busyUntil = Date.now() + (error.details.retryAfterSeconds ?? 1) * 1000;
                        upstream.busyStatus = error.details.status ?? 503;
                    }
                    tried.add(upstream);
                    const next = retryable ? this.router.pick(key, tried) : null;
                    if (next == null) {
                        if (error instanceof UpstreamConnectError)
                            throw new EngineError("upstream_unavailable",
                                tried.size > 1 ? `No upstream can be reached (last: ${error.message})` : error.message);
                        throw error;
                    }
                    this.options.log?.(
                        `upstream: ${upstream.label} failed before answering `
                            + `(${error instanceof Error ? error.message : String(error)}); trying ${next.label}`
                    );
                    moveTo(next);
                    upstream = next;
                }
            }
        } finally {
            this.activity.end();
        }
    }

    /** The name sent upstream: a listed model a routed engine picked by name, else the connected one (alone: always it). */
    private modelFor(requested: string | undefined): string {
        return requested != null && requested !== this.info?.id && this.listed.has(requested) ? requested : this.upstreamModel;
    }

    private report(result: GenerationResult, started: number, model: string | undefined): void {
        if (this.generations.listening)
            this.generations.emit({...result, durationMs: performance.now() - started, model});
    }

    private totalSlots(): number {
        return this.upstreams.reduce((sum, upstream) => sum + (upstream.slots ?? this.options.parallel ?? defaultParallel), 0);
    }

    private setState(state: EngineState): void {
        if (this.currentState === state)
            return;
        this.currentState = state;
        this.stateChanges.emit(state);
    }
}
