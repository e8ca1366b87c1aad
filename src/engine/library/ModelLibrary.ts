import path from "node:path";
import {Emitter} from "../../protocol/Emitter.js";
import {EngineError} from "../EngineError.js";
import {GenerationActivity} from "../GenerationActivity.js";
import {generateOnLease} from "../generateOnLease.js";
import type {HostedEngine} from "../HostedEngine.js";
import type {
    ChatTurn, EngineLease, EngineState, EngineStats, GenerationRequest, GenerationResult, GenerationSummary, LibraryModel,
    LoadProgress, ModelDirectory, ModelInfo, PromptShape, ToolSpec
} from "../types.js";
import {rawEngine, type CompletionRequest, type CompletionResult, type EmbeddingRequest, type EmbeddingResult,
    type RawRequestRouting} from "../completionTypes.js";
import {IdleUnloader} from "./IdleUnloader.js";
import {LibraryEntry, type LibraryModelSpec} from "./LibraryEntry.js";
import {LoadRoom} from "./LoadRoom.js";
import type {ModelLibraryOptions} from "./ModelLibraryOptions.js";
import {ReleaseSignal} from "./ReleaseSignal.js";

type OnLoadProgress = (progress: LoadProgress) => void;

export type {ModelLibraryOptions} from "./ModelLibraryOptions.js";

/**
 * Several models behind the one engine port: a request's `model` picks one (by id or alias), an unloaded one is loaded
 * on demand (requests meanwhile wait; a stream opens first), and what is resident stays within `maxLoaded` models and
 * the memory budget by unloading the least recently used idle models, never one with a request in flight. Each model
 * is an engine of its own (its sequences, queue, prompt cache and restart cache).
 */
export class ModelLibrary implements HostedEngine, ModelDirectory {
    public readonly kind = "local";
    public readonly activity: GenerationActivity;
    public readonly limits: ModelDirectory["limits"];
    private readonly entries = new Map<string, LibraryEntry>();
    private readonly changes = new Emitter<void>();
    private readonly generations = new Emitter<GenerationSummary>();
    private readonly stateChanges = new Emitter<EngineState>();
    /** A request released its model: a load waiting for room looks again. */
    private readonly released = new ReleaseSignal();
    private readonly room: LoadRoom;
    /** Loads run one at a time, so two never count the same free memory. */
    private loadTurn: Promise<unknown> = Promise.resolve();
    private lastUsed: LibraryEntry | null = null;
    private readonly idle: IdleUnloader;
    private readonly now: () => number;
    private defaultModel: string | null;
    /** The operator's idle time (`--idle-unload-secs`) in milliseconds; null: none. */
    private readonly defaultIdleMs: number | null;

    public constructor(private readonly options: ModelLibraryOptions) {
        this.now = options.now ?? Date.now;
        this.activity = options.activity ?? new GenerationActivity();
        this.defaultModel = options.defaultModel ?? null;
        this.limits = {
            maxLoaded: options.maxLoaded, memoryBudgetBytes: options.memoryBudgetBytes, idleUnloadSeconds: options.idleUnloadSeconds
        };
        this.defaultIdleMs = options.idleUnloadSeconds == null ? null : options.idleUnloadSeconds * 1000;
        this.replaceModels(options.models);
        this.room = new LoadRoom({
            entries: () => this.entries.values(), limits: this.limits, released: this.released,
            unload: (entry) => this.unloadEntry(entry), log: options.log
        });
        this.idle = new IdleUnloader({
            defaultIdleMs: this.defaultIdleMs,
            entries: () => this.entries.values(), unload: (entry) => void this.unloadEntry(entry), now: this.now, log: options.log
        });
    }

    /** This object is its own directory: the domain reads names and states through `library`. */
    public get library(): ModelDirectory {
        return this;
    }

    /**
     * The models as configured now (a rescan of the models folder): new ones are added, a removed one goes once idle
     * (unloaded), a kept one keeps its engine and state.
     */
    public replaceModels(models: readonly LibraryModelSpec[], defaultModel?: string | null): void {
        if (defaultModel !== undefined)
            this.defaultModel = defaultModel;
        const ids = new Set(models.map((model) => model.id));
        for (const [id, entry] of this.entries)
            if (!ids.has(id) && entry.inFlight === 0) {
                this.entries.delete(id);
                void entry.engine.dispose();
            }
        for (const spec of models) {
            const kept = this.entries.get(spec.id);
            if (kept != null) {
                const grown = kept.spec.bytes !== spec.bytes;
                kept.spec = spec;
                // A file that failed its header read while it was being copied is read again once it has changed.
                if (grown && kept.estimatedBytes == null && kept.estimating == null)
                    this.estimateListed(kept);
                continue;
            }
            const engine = this.options.createEngine(spec, this.activity);
            engine.onGeneration((summary) => this.generations.emit({...summary, model: spec.id}));
            const entry = new LibraryEntry(spec, engine);
            engine.onStateChange((state) => {
                // A model that stopped on its own (its process ended) shows why until it loads again.
                if (state === "failed" && engine.failure != null)
                    entry.failure = engine.failure;
                this.changes.emit();
            });
            this.entries.set(spec.id, entry);
            // Read from the file's header at once, so the lists show each model's memory and context before it loads.
            this.estimateListed(entry);
        }
        this.changes.emit();
    }

    public get state(): EngineState {
        return this.entries.size > 0 ? "ready" : "unloaded";
    }

    /** The model that answered last while it stays loaded, else any loaded one (what single-model views show). */
    public get model(): ModelInfo | null {
        const shown = this.lastUsed?.loaded === true ? this.lastUsed : [...this.entries.values()].find((entry) => entry.loaded);
        return shown?.engine.model ?? null;
    }

    public resolve(requested: string | null): string {
        if (requested == null || requested === "") {
            const fallback = this.defaultModel ?? this.entries.keys().next().value;
            if (fallback == null || !this.entries.has(fallback))
                throw new EngineError("not_ready", "The model library is empty: put GGUF files in --models-dir or give --model.");
            return fallback;
        }
        if (this.entries.has(requested))
            return requested;
        const byAlias = [...this.entries.values()].find((entry) => entry.spec.aliases.includes(requested));
        if (byAlias != null)
            return byAlias.id;
        throw new EngineError("model_not_found", `The model '${requested}' is not in the library.`,
            {model: requested, served: [...this.entries.values()].flatMap((entry) => [entry.id, ...entry.spec.aliases])});
    }

    public list(): LibraryModel[] {
        return [...this.entries.values()].map((entry) => entry.view(this.defaultIdleMs));
    }

    public onChange(listener: () => void): () => void {
        return this.changes.on(listener);
    }

    public onStateChange(listener: (state: EngineState) => void): () => void {
        return this.stateChanges.on(listener);
    }

    public onGeneration(listener: (summary: GenerationSummary) => void): () => void {
        return this.generations.on(listener);
    }

    /** `source`: a model's id, alias or file ("" = the default); a library loads only its own models. */
    public load(source: string, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
        return this.loadKeptAlive(source, onProgress);
    }

    /** Loads it as a request would (`POST /v1/models/{id}/load`): a `keep_alive` given stands as a request's does. */
    public readonly loadModel: ModelDirectory["loadModel"] = (id, onProgress, keepAliveMs, usedBy) =>
        this.loadKeptAlive(id, onProgress, keepAliveMs, usedBy);

    private async loadKeptAlive(source: string, onProgress?: OnLoadProgress, keepAliveMs?: number | null,
        usedBy?: string): Promise<ModelInfo> {
        const byFile = [...this.entries.values()].find((entry) => source !== "" && path.resolve(source) === entry.spec.path);
        const entry = byFile ?? this.entry(source);
        entry.inFlight++;
        try {
            await this.ensureLoaded(entry, undefined, onProgress);
            this.lastUsed = entry;
            return entry.engine.model!;
        } finally {
            this.finished(entry, keepAliveMs, usedBy);
        }
    }

    /** Aborts running generations and unloads every model (the host's Unload Model). */
    public async unload(): Promise<void> {
        await Promise.all([...this.entries.values()].map((entry) => this.unloadEntry(entry)));
    }

    /** Unloads it once its requests have ended (never cut); `signal` (the asking client gone) ends the wait, the model stays. */
    public async unloadModel(id: string, signal?: AbortSignal): Promise<boolean> {
        const entry = this.entry(id);
        if (!entry.resident)
            return false;
        await this.released.until(() => entry.inFlight === 0 && entry.loading == null, () => entry.loading, signal);
        await this.unloadEntry(entry);
        return true;
    }

    /** The loaded models' sequences and queues summed; requests waiting for a model to load count as queued. */
    public stats(): EngineStats {
        const entries = [...this.entries.values()];
        const loaded = entries.filter((entry) => entry.loaded).map((entry) => entry.engine.stats());
        const sum = (pick: (stats: EngineStats) => number) => loaded.reduce((total, stats) => total + pick(stats), 0);
        const waitingForLoad = entries.reduce((total, entry) => total + (entry.loading != null ? entry.inFlight : 0), 0);
        return {
            sequencesBusy: sum((stats) => stats.sequencesBusy), sequencesTotal: sum((stats) => stats.sequencesTotal),
            queueDepth: sum((stats) => stats.queueDepth) + waitingForLoad, queueLimit: sum((stats) => stats.queueLimit)
        };
    }

    public countPromptTokens(turns: ChatTurn[], tools: ToolSpec[] = [], model?: string): Promise<number> {
        return this.onModel({model}, (engine) => engine.countPromptTokens(turns, tools));
    }

    public complete(request: CompletionRequest): Promise<CompletionResult> {
        return this.onModel(request, (engine) => rawEngine(engine, request.model).complete(request));
    }

    public embed(request: EmbeddingRequest): Promise<EmbeddingResult> {
        return this.onModel(request, (engine) => rawEngine(engine, request.model).embed(request));
    }

    public generate(request: GenerationRequest): Promise<GenerationResult> {
        return generateOnLease(this, request);
    }

    /**
     * Loads the request's model if it must (the stream opens first: `onQueued`), then takes a sequence of it. The model
     * counts the request as in flight from here to the lease's release.
     */
    public async acquire(turns: ChatTurn[], tools: ToolSpec[], signal?: AbortSignal, shape: PromptShape = {}): Promise<EngineLease> {
        const entry = this.entry(shape.model ?? null);
        if (!entry.loaded || this.room.draining(entry.id))
            shape.onQueued?.();
        // A load waiting for this model's requests to end goes first: a request arriving meanwhile waits for that load,
        // not counted in flight (with one model at a time and steady traffic, the load waited for ever).
        await this.room.drained(entry.id, signal);
        entry.inFlight++;
        let leased = false;
        try {
            await this.ensureLoaded(entry, signal);
            const lease = await entry.engine.acquire(turns, tools, signal, shape);
            leased = true;
            this.lastUsed = entry;
            let released = false;
            return {
                promptTokens: lease.promptTokens,
                cachedPrefixTokens: lease.cachedPrefixTokens,
                generate: (request) => lease.generate(request),
                release: () => {
                    if (released)
                        return;
                    released = true;
                    lease.release();
                    this.finished(entry, shape.keepAliveMs, shape.usedBy);
                }
            };
        } finally {
            if (!leased)
                this.finished(entry, shape.keepAliveMs, shape.usedBy);
        }
    }

    public async forgetPromptStates(partition?: string): Promise<number> {
        const counts = await Promise.all([...this.entries.values()].map((entry) => entry.engine.forgetPromptStates(partition)));
        return counts.reduce((total, count) => total + count, 0);
    }

    public async dispose(): Promise<void> {
        this.idle.stop();
        await Promise.all([...this.entries.values()].map((entry) => entry.engine.dispose()));
        await this.options.shared?.dispose();
        this.changes.clear();
    }

    /** `work` on the request's model, loaded first if it must be; the model counts it in flight until it ends. */
    private async onModel<T>(request: RawRequestRouting, work: (engine: HostedEngine) => Promise<T>): Promise<T> {
        const entry = this.entry(request.model ?? null);
        entry.inFlight++;
        try {
            await this.ensureLoaded(entry, request.signal);
            return await work(entry.engine);
        } finally {
            this.finished(entry, request.keepAliveMs, request.usedBy);
        }
    }

    private entry(requested: string | null): LibraryEntry {
        return this.entries.get(this.resolve(requested))!;
    }

    /** A request for `entry` ended; its keep_alive, when it gave one (`PromptShape.keepAliveMs`), is the model's from now. */
    private finished(entry: LibraryEntry, keepAliveMs?: number | null, usedBy?: string): void {
        entry.requestEnded(this.now(), keepAliveMs, usedBy);
        this.released.emit();
        this.changes.emit();
        this.idle.check();
    }

    /** Loads the model unless it is loaded; requests for a model being loaded wait for the same load. */
    private async ensureLoaded(entry: LibraryEntry, signal?: AbortSignal, onProgress?: (progress: LoadProgress) => void): Promise<void> {
        while (!entry.loaded) {
            signal?.throwIfAborted();
            if (entry.unloading != null)
                await ReleaseSignal.awaitUnlessAborted(entry.unloading, signal);
            else if (entry.loading != null)
                await ReleaseSignal.awaitUnlessAborted(entry.loading, signal).catch((error: unknown) => {
                    // The load another request started ends with that request's cancel (it waited for room with that
                    // request's signal): this one, still wanted, loads it again instead of failing as cancelled.
                    if (!(error instanceof EngineError && error.kind === "aborted") || signal?.aborted === true)
                        throw error;
                });
            else {
                entry.loading = this.loadEntry(entry, signal, onProgress).finally(() => {
                    entry.loading = null;
                    this.changes.emit();
                    // Its requests may all have ended (cancelled) during the load: it is idle from now.
                    this.idle.check();
                });
                this.changes.emit();
                await entry.loading;
            }
        }
    }

    private loadEntry(entry: LibraryEntry, signal?: AbortSignal, onProgress?: (progress: LoadProgress) => void): Promise<void> {
        const turn = this.loadTurn.then(async () => {
            const neededBytes = await this.estimate(entry).catch((error: unknown) => {
                throw new EngineError("load_failed", `The model '${entry.id}' cannot be loaded: ${(error as Error).message}`);
            });
            await this.room.make(entry, neededBytes, signal);
            const started = performance.now();
            try {
                await entry.engine.load(entry.spec.path, onProgress);
                entry.failure = null;
            } catch (error) {
                entry.failure = (error as Error).message;
                this.options.log?.(`models: ${entry.id} failed to load: ${entry.failure}`);
                throw error;
            }
            this.options.log?.(`models: loaded ${entry.id} in ${Math.round(performance.now() - started)} ms `
                + `(about ${(neededBytes / 2 ** 20).toFixed(0)} MiB; ${[...this.entries.values()].filter((other) => other.loaded).length}`
                + ` of at most ${this.limits.maxLoaded} loaded)`);
        });
        this.loadTurn = turn.catch(() => undefined);
        return turn;
    }

    private unloadEntry(entry: LibraryEntry): Promise<void> {
        return entry.unload(() => this.changes.emit());
    }

    /** `estimate` for the lists, started as a model is listed: a file it cannot read is logged, and shown `failed`. */
    private estimateListed(entry: LibraryEntry): void {
        this.estimate(entry).catch((error: unknown) =>
            this.options.log?.(`models: ${entry.id} cannot be loaded: ${(error as Error).message}`));
    }

    private estimate(entry: LibraryEntry): Promise<number> {
        return entry.estimate((spec) => this.options.estimate(spec), () => this.changes.emit());
    }
}
