import {rawEngine, type CompletionRequest, type CompletionResult, type EmbeddingRequest, type EmbeddingResult} from "../completionTypes.js";
import {EngineError} from "../EngineError.js";
import type {GenerationActivity} from "../GenerationActivity.js";
import {generateOnLease} from "../generateOnLease.js";
import type {HostedEngine} from "../HostedEngine.js";
import type {
    ChatTurn, EngineLease, EngineState, EngineStats, GenerationRequest, GenerationResult, GenerationSummary, LibraryModel,
    LoadProgress, ModelDirectory, ModelInfo, PromptShape, ToolSpec
} from "../types.js";

/** The two engines a routed engine puts on one endpoint. */
export type RoutedEngineParts = {
    /** The local models: a model library, whose directory resolves names and loads and unloads them. */
    local: HostedEngine & {readonly library: ModelDirectory},
    /**
     * The upstream servers (kind `upstream`), connected by the host; the names it serves (`servedModelNames`) are routed
     * to it. The host makes it with the library's `activity`, so the faces follow one.
     */
    upstream: HostedEngine
};

/** How a model name is served: by which engine, under which id, and whether that is the upstream. */
type Route = {engine: HostedEngine, id: string, upstream: boolean};

/** An upstream model's use as the lists show it: requests in flight, the last one's end, each caller's own. */
type UpstreamUse = {inFlight: number, lastUsedAt: number | null, lastUsedBy: Map<string, number>};

/**
 * A model library beside upstream servers on one endpoint (`--upstream` with `--model`/`--models-dir`): a request goes,
 * by its `model`, to the library when the library resolves the name, else to the upstreams when they serve it, else it
 * is the library's `model_not_found` listing the names of both. Each side stays what it is alone (the library loads on
 * demand within its budget, the upstream engine spreads over its servers); this only picks one per request, and lists
 * the upstreams' models as entries of the directory (`loaded` while connected, no file or memory: `upstreamHosts`).
 */
export class RoutedEngine implements HostedEngine, ModelDirectory {
    /** Its models are a local library's; the upstreams' are entries of it, which no caller needs to tell apart. */
    public readonly kind = "local";
    /** Requests on each upstream model now, and when its last one ended (the library counts its own models'). */
    private readonly upstreamUse = new Map<string, UpstreamUse>();

    public constructor(private readonly parts: RoutedEngineParts, private readonly now: () => number = Date.now) {}

    public get activity(): GenerationActivity {
        return this.parts.local.activity;
    }

    /** This object is its own directory, as the library is. */
    public get library(): ModelDirectory {
        return this;
    }

    public get limits(): ModelDirectory["limits"] {
        return this.parts.local.library.limits;
    }

    /** Ready while either side can answer (an empty models folder still serves the upstreams' models). */
    public get state(): EngineState {
        const {local, upstream} = this.parts;
        return local.state === "ready" || upstream.state === "ready" ? "ready" : local.state;
    }

    public get model(): ModelInfo | null {
        return this.parts.local.model ?? this.parts.upstream.model;
    }

    public resolve(requested: string | null): string {
        return this.route(requested).id;
    }

    public list(): LibraryModel[] {
        const info = this.parts.upstream.model;
        const local = this.parts.local.library.list();
        if (info == null)
            return local;
        const upstreamHosts = this.upstreamHosts();
        const stats = this.parts.upstream.stats();
        return [...local, ...this.upstreamNames().map((id): LibraryModel => {
            const use = this.upstreamUse.get(id);
            const contextSize = this.parts.upstream.servedModelContext?.(id) ?? info.contextSize;
            return {
                id, aliases: [], path: info.path, fileBytes: 0, quantization: null, status: "loaded", failure: null,
                estimatedBytes: null, info: {...info, id, contextSize}, contextSize, inFlight: use?.inFlight ?? 0,
                lastUsedAt: use?.lastUsedAt ?? null, lastUsedBy: new Map(use?.lastUsedBy), keepAliveMs: null, idleUnloadAt: null,
                stats, upstreamHosts
            };
        })];
    }

    /** A library model's id, alias or file loads; an upstream's model has nothing to load here (its info, under its name). */
    public async load(source: string, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
        return this.upstreamInfo(source) ?? await this.parts.local.load(source, onProgress);
    }

    public readonly loadModel: ModelDirectory["loadModel"] = async (id, onProgress, keepAliveMs, usedBy) =>
        this.upstreamInfo(id) ?? await this.parts.local.library.loadModel(id, onProgress, keepAliveMs, usedBy);

    /** An upstream's model under `name` while connected; null when no upstream serves that name. */
    private upstreamInfo(name: string): ModelInfo | null {
        const info = this.parts.upstream.model;
        return info != null && name !== "" && this.upstreamNames().includes(name) ? {...info, id: name} : null;
    }

    /** An upstream's model is never unloaded from here (false: it was not loaded in this process). */
    public async unloadModel(id: string, signal?: AbortSignal): Promise<boolean> {
        return this.route(id).upstream ? false : await this.parts.local.library.unloadModel(id, signal);
    }

    /** Unloads the local models (the editor's Unload Model); the upstreams stay connected. */
    public async unload(): Promise<void> {
        await this.parts.local.unload();
    }

    public async dispose(): Promise<void> {
        await Promise.all([this.parts.local.dispose(), this.parts.upstream.dispose()]);
    }

    public onChange(listener: () => void): () => void {
        return both(this.parts.local.library.onChange(listener), this.parts.upstream.onStateChange(() => listener()));
    }

    public onStateChange(listener: (state: EngineState) => void): () => void {
        const changed = () => listener(this.state);
        return both(this.parts.local.onStateChange(changed), this.parts.upstream.onStateChange(changed));
    }

    public onGeneration(listener: (summary: GenerationSummary) => void): () => void {
        return both(this.parts.local.onGeneration(listener), this.parts.upstream.onGeneration(listener));
    }

    /** Both sides' sequences and queues summed (the upstream's while connected), its servers' states, the library's speculation. */
    public stats(): EngineStats {
        const local = this.parts.local.stats();
        const upstream = this.parts.upstream.stats();
        const counted = this.parts.upstream.state === "ready" ? [local, upstream] : [local];
        const sum = (pick: (stats: EngineStats) => number) => counted.reduce((total, stats) => total + pick(stats), 0);
        return {
            sequencesBusy: sum((stats) => stats.sequencesBusy), sequencesTotal: sum((stats) => stats.sequencesTotal),
            queueDepth: sum((stats) => stats.queueDepth), queueLimit: sum((stats) => stats.queueLimit),
            ...local.speculative != null && {speculative: local.speculative},
            ...upstream.upstreams != null && {upstreams: upstream.upstreams}
        };
    }

    public async countPromptTokens(turns: ChatTurn[], tools: ToolSpec[] = [], model?: string): Promise<number> {
        const route = this.route(model);
        return await route.engine.countPromptTokens(turns, tools, route.id);
    }

    public generate(request: GenerationRequest): Promise<GenerationResult> {
        return generateOnLease(this, request);
    }

    public async acquire(turns: ChatTurn[], tools: ToolSpec[], signal?: AbortSignal, shape: PromptShape = {}): Promise<EngineLease> {
        const route = this.route(shape.model);
        if (!route.upstream)
            return await route.engine.acquire(turns, tools, signal, shape);
        const lease = await route.engine.acquire(turns, tools, signal, {...shape, model: route.id});
        const use = this.upstreamUse.get(route.id) ?? {inFlight: 0, lastUsedAt: null, lastUsedBy: new Map<string, number>()};
        this.upstreamUse.set(route.id, use);
        use.inFlight++;
        let released = false;
        return {
            promptTokens: lease.promptTokens,
            cachedPrefixTokens: lease.cachedPrefixTokens,
            // A request for the default model names none: the upstream is told which of its models answers.
            generate: (request) => lease.generate({...request, model: route.id}),
            release: () => {
                if (released)
                    return;
                released = true;
                lease.release();
                use.inFlight--;
                use.lastUsedAt = this.now();
                if (shape.usedBy != null)
                    use.lastUsedBy.set(shape.usedBy, use.lastUsedAt);
            }
        };
    }

    /** On the library's model; a model of the upstreams is refused (`rawEngine`). */
    public async complete(request: CompletionRequest): Promise<CompletionResult> {
        const route = this.route(request.model);
        return rawEngine(route.engine, route.id).complete({...request, model: route.id});
    }

    public async embed(request: EmbeddingRequest): Promise<EmbeddingResult> {
        const route = this.route(request.model);
        return rawEngine(route.engine, route.id).embed({...request, model: route.id});
    }

    public async forgetPromptStates(partition?: string): Promise<number> {
        const {local, upstream} = this.parts;
        const [kept, upstreamKept] = await Promise.all([local.forgetPromptStates(partition), upstream.forgetPromptStates(partition)]);
        return kept + upstreamKept;
    }

    /**
     * The engine that serves `requested`: the library's model when it resolves the name (or names none and the library
     * has a default), else the upstreams' model of that name (or their first, for no name and an empty library).
     */
    private route(requested: string | null | undefined): Route {
        const {local, upstream} = this.parts;
        try {
            return {engine: local, id: local.library.resolve(requested ?? null), upstream: false};
        } catch (error) {
            if (!(error instanceof EngineError))
                throw error;
            const names = this.upstreamNames();
            const wanted = requested == null || requested === "" ? names[0] : requested;
            if (wanted != null && names.includes(wanted))
                return {engine: upstream, id: wanted, upstream: true};
            if (error.kind !== "model_not_found")
                throw error;
            throw new EngineError("model_not_found", `The model '${requested}' is neither in the library nor on the upstreams.`,
                {model: requested ?? "", served: [...(error.details.served ?? []), ...names]});
        }
    }

    /** The names the upstreams serve, but those the library resolves: a local model of the same name wins. */
    private upstreamNames(): string[] {
        return (this.parts.upstream.servedModelNames ?? []).filter((name) => !this.resolvesLocally(name));
    }

    private resolvesLocally(name: string): boolean {
        try {
            this.parts.local.library.resolve(name);
            return true;
        } catch (error) {
            if (error instanceof EngineError)
                return false;
            throw error;
        }
    }

    /** The upstreams' hosts (`host:port`) from the URLs their stats carry, credentials already left out there. */
    private upstreamHosts(): string[] {
        return (this.parts.upstream.stats().upstreams ?? []).map((upstream) => new URL(upstream.url).host);
    }
}

/** One unsubscribe for two subscriptions. */
function both(first: () => void, second: () => void): () => void {
    return () => {
        first();
        second();
    };
}
