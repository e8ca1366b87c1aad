import path from "node:path";
import type {HostedEngine} from "../engine/HostedEngine.js";
import type {EngineState, LoadProgress, ModelDirectory, ModelInfo} from "../engine/types.js";
import type {ModelLibrary} from "../engine/library/ModelLibrary.js";
import {CompactionCodec} from "../responses/compaction/compaction.js";
import {Compactor} from "../responses/compaction/Compactor.js";
import {ResponsesService, type ResponsesServiceOptions} from "../responses/ResponsesService.js";
import {ChatCompletionsService} from "../protocols/chat/ChatCompletionsService.js";
import {ConversationsService} from "../responses/ConversationsService.js";
import {LanguageModelChatService} from "../protocols/lm/LanguageModelChatService.js";
import {MessagesService} from "../protocols/messages/MessagesService.js";
import {createApp} from "../server/app.js";
import {HttpServer} from "../server/HttpServer.js";
import {checkPin, modelAccess} from "../server/modelAccess.js";
import {ResponsesWebSocketServer} from "../server/websocket/ResponsesWebSocketServer.js";
import type {RequestLogEntry} from "../server/middleware/requestLog.js";
import {ServerMetrics} from "../server/metrics.js";
import type {BackgroundJobs} from "../responses/background/BackgroundJobs.js";
import {ConversationStore} from "../store/ConversationStore.js";
import {ResponseStore} from "../store/ResponseStore.js";
import {StreamReaderSlots} from "../server/StreamReaderSlots.js";
import {DurableStoreUnavailableError, StoreDatabase} from "../store/durable/StoreDatabase.js";
import type {HostConfig} from "./config.js";
import {modelLoadLines} from "./modelLoadLines.js";
import {AcceptedKeys} from "./acceptedKeys.js";
import {createEngine, libraryModelStatesFolder, promptCacheOf} from "./createEngine.js";
import {PromptStateSweeper} from "./PromptStateSweeper.js";
import {librarySpecs} from "./librarySpecs.js";
import {watchFolder} from "./watchFolder.js";
import {listUpstreamModels, type UpstreamModelListing} from "./upstreamModels.js";
import {readOrCreateSecret} from "./dataFolder.js";

export type HostEvents = {
    log?: (line: string) => void,
    onRequest?: (entry: RequestLogEntry) => void,
    onEngineState?: (state: EngineState) => void,
    /** Each response's prompt evaluation, step by step (the editor's status bar shows it). */
    onPromptProgress?: ResponsesServiceOptions["onPromptProgress"]
};

/** Configured sealing secrets win; a durable store keeps its own in 0600 files so sealed items verify after a restart. */
function sealingSecrets(config: HostConfig): {reasoning: string | null, compaction: string | null} {
    const {kind, dataDir} = config.storage;
    const kept = (name: string, configured: string | null) =>
        configured ?? (kind === "durable" && dataDir != null ? readOrCreateSecret(path.join(dataDir, name)) : null);
    return {reasoning: kept("reasoning-secret", config.reasoningSecret), compaction: kept("compaction-secret", config.compaction.secret)};
}

/**
 * The one core both faces run: the engine, the stores, the Responses service and the HTTP server,
 * wired together. The CLI starts one from flags; the VS Code extension from its settings.
 */
export class LocalResponsesHost {
    public readonly engine: HostedEngine;
    public readonly store: ResponseStore;
    public readonly responses: ResponsesService;
    /** Chat Completions over the Responses service (the HTTP face mounts it). */
    public readonly chat: ChatCompletionsService;
    /** Anthropic Messages over the Responses service (the HTTP face mounts it). */
    public readonly messages: MessagesService;
    /** The editor's chat (`vscode.lm`) over the Responses service (the editor face serves it). */
    public readonly languageModelChat: LanguageModelChatService;
    public readonly conversations: ConversationStore;
    public readonly jobs: BackgroundJobs;
    public readonly metrics: ServerMetrics;
    private readonly http: HttpServer;
    private readonly keys = new AcceptedKeys();
    private endpoint: string | null = null;
    /** The durable stores' database, opened by the first `start()` (null for `--store memory`). */
    private storage: Promise<StoreDatabase | null> | null = null;
    /** The library the engine serves (alone or beside upstreams), and the upstreams beside it; the host fills and connects them. */
    private readonly modelLibrary: ModelLibrary | null;
    private readonly upstreamBeside: HostedEngine | null;
    private libraryOpened: Promise<void> | null = null;
    /** Stops following the models folder. */
    private libraryWatch: (() => void) | null = null;
    /** Keeps the prompt cache on disk within its TTL and byte budget (null without one); started with the data folder. */
    private readonly promptStates: PromptStateSweeper | null;

    public constructor(private readonly config: HostConfig, private readonly events: HostEvents = {}) {
        const created = createEngine(config, events.log);
        this.engine = created.engine;
        this.modelLibrary = created.library;
        this.upstreamBeside = created.upstreamBeside;
        this.promptStates = this.promptStateSweeper();
        if (events.onEngineState != null)
            this.engine.onStateChange(events.onEngineState);
        this.store = new ResponseStore(config.store);
        this.conversations = new ConversationStore(config.conversations);
        const secrets = sealingSecrets(config);
        const compactor = new Compactor(this.engine, new CompactionCodec(secrets.compaction), config.compaction);
        this.responses = new ResponsesService(this.engine, this.store, {
            compactor,
            conversations: this.conversations,
            background: backgroundLimits(config.background, () => this.store.bounds.maxBytes),
            onGeneration: (stats) => this.metrics.recordGeneration(stats),
            onGenerationAborted: (kind) => this.metrics.recordAbortedGeneration(kind),
            onPromptProgress: events.onPromptProgress,
            strictModel: config.strictModel,
            strictTools: config.strictTools,
            reasoningSecret: secrets.reasoning,
            reasoningEchoMaxBytes: config.reasoningEchoMaxBytes,
            sharedPromptCache: config.sharedPromptCache,
            promptCacheRetention: config.promptCacheRetention,
            log: events.log
        });
        this.jobs = this.responses.background!.jobs;
        this.chat = new ChatCompletionsService(this.responses);
        this.messages = new MessagesService(this.responses);
        this.languageModelChat = new LanguageModelChatService(this.responses);
        this.forgetPromptStatesOnDelete();
        const readers = new StreamReaderSlots({
            maxReaders: config.background.streamReaders, maxReadersPerOwner: config.background.streamReadersPerKey
        });
        this.metrics = new ServerMetrics({
            engine: this.engine, store: this.store, conversations: this.conversations, jobs: this.jobs, readers
        });
        const keys = () => this.keys.of(this.config.apiKeys, this.config.adminApiKeys);
        const access = modelAccess({apiKeys: keys, adminApiKeys: () => this.config.adminApiKeys, statusAllKeys: config.statusAllKeys});
        this.http = new HttpServer(createApp({
            engine: this.engine,
            responses: this.responses,
            chat: this.chat,
            messages: this.messages,
            stateful: {
                jobs: this.jobs, readers, store: this.store, conversations: this.conversations, compactor, metrics: this.metrics,
                conversationsService: new ConversationsService(this.conversations, this.store),
                streamWriteTimeoutMs: config.background.streamWriteTimeoutSeconds * 1000,
                statusAllKeys: config.statusAllKeys
            },
            apiKeys: keys,
            access,
            allowedOrigins: config.allowedOrigins,
            bodyLimitBytes: config.bodyLimitBytes,
            streamKeepAliveMs: config.streamKeepAliveSeconds * 1000,
            streamWriteTimeoutMs: config.streamWriteTimeoutSeconds * 1000,
            onRequest: events.onRequest,
            log: events.log
        }), new ResponsesWebSocketServer({
            responses: this.responses,
            apiKeys: keys,
            checkRequest: (owner, body) => checkPin(access, owner, body),
            allowedOrigins: config.allowedOrigins,
            maxPayloadBytes: config.bodyLimitBytes,
            pingIntervalMs: config.streamKeepAliveSeconds * 1000,
            log: events.log
        }));
    }

    /**
     * A key that deletes what it stored (or the person who clears the store) deletes the prompt states on disk that its
     * prompts made: they hold those prompts' tokens. A deletion of one response drops all of its key's states, since a
     * state holds a whole conversation and cannot be traced to one response; the cost is a cold next prompt.
     */
    private forgetPromptStatesOnDelete(): void {
        const forget = (owner: string | undefined) => {
            const partition = owner == null ? undefined : this.responses.cachePartition(owner);
            void this.engine.forgetPromptStates(partition).then((count) => {
                if (count > 0)
                    this.events.log?.(
                        `prompt cache: deleted ${count} saved prompt state${count === 1 ? "" : "s"} with the stored `
                            + `data they were made from`
                    );
            }, (error: unknown) => this.events.log?.(`prompt cache: deleting saved states failed: ${(error as Error).message}`));
        };
        this.store.onChange((change) => {
            if (change.type === "delete" || change.type === "clear")
                forget(change.owner);
        });
        this.conversations.onDelete((owner) => forget(owner));
    }

    /** The sweeper of the whole prompt cache folder: a library keeps the folders of the models it lists, one model the folder. */
    private promptStateSweeper(): PromptStateSweeper | null {
        const cache = promptCacheOf(this.config);
        if (cache == null)
            return null;
        const library = this.modelLibrary;
        return new PromptStateSweeper({
            ...cache, log: this.events.log,
            servedFolders: () => library == null ? [cache.folder]
                : library.list().map((model) => libraryModelStatesFolder(cache.folder, model.id))
        });
    }

    /** Once the data folder is this process's (its lock held) and the library listed: another process's files are not swept. */
    private async startPromptStateSweeper(): Promise<void> {
        if (this.promptStates != null && await this.openStorage() != null)
            await this.promptStates.start();
    }

    public get url(): string | null {
        return this.endpoint;
    }

    public get model(): ModelInfo | null {
        return this.engine.model;
    }

    /** The model name sent to the upstreams while connected (`model.id` may be an alias); null with the local engine or disconnected. */
    public get upstreamModel(): string | null {
        return this.engine.model != null ? this.engine.upstreamModelName ?? null : null;
    }

    /** Loads the GGUF file `modelPath`, or with `--engine upstream` connects to the upstreams (`modelPath` is then ignored). */
    public async loadModel(modelPath: string, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
        // The data folder's lock first: the prompt cache opens with the model, in that folder, and another process's
        // files there must not be touched (nor a whole model loaded that could not be served).
        await this.openStorage();
        await this.openLibrary();
        await this.startPromptStateSweeper();
        const info = await this.engine.load(this.config.engine === "upstream" ? this.config.upstream.model ?? "" : modelPath, onProgress);
        for (const line of modelLoadLines(info))
            this.events.log?.(line);
        return info;
    }

    /** The model library (`--models-dir`, several `--model`, a presets file), or null when one model is served. */
    public get library(): ModelDirectory | null {
        return this.engine.library ?? null;
    }

    /**
     * Lists the library's models (once; `start` and `loadModel` do it), connects the upstreams beside them (their models
     * listed too), and follows the models folder: a file added or removed there is in the list a moment later. Nothing is
     * loaded: a request, `loadModel` or the load endpoint does that.
     */
    public openLibrary(): Promise<void> {
        const engine = this.modelLibrary;
        if (engine == null)
            return Promise.resolve();
        this.libraryOpened ??= (async () => {
            const rescan = async () => {
                const {models, defaultModel} = await librarySpecs(this.config);
                engine.replaceModels(models, defaultModel);
            };
            await rescan();
            this.events.log?.(`models: library of ${engine.list().length} (${engine.list().map((model) => model.id).join(", ")}); at most `
                + `${engine.limits.maxLoaded} loaded within ${(engine.limits.memoryBudgetBytes / 2 ** 30).toFixed(1)} GiB`
                + (engine.limits.idleUnloadSeconds == null ? "" : `, unloaded after ${engine.limits.idleUnloadSeconds} s idle`));
            if (this.upstreamBeside != null) {
                await this.upstreamBeside.load(this.config.upstream.model ?? "");
                this.events.log?.(`models: beside them, the upstreams' ${(this.upstreamBeside.servedModelNames ?? []).join(", ")}`);
            }
            const folder = this.config.library.modelsDir;
            if (folder != null)
                this.libraryWatch = watchFolder(folder, () => void rescan().catch(
                    (error: unknown) => this.events.log?.(`models: rescanning ${folder} failed: ${(error as Error).message}`)
                ));
        })();
        return this.libraryOpened;
    }

    /** The models each configured upstream lists now, or why it does not answer (with `--engine upstream`; none otherwise). */
    public listUpstreamModels(): Promise<UpstreamModelListing[]> {
        return this.config.engine === "upstream" ? listUpstreamModels(this.config.upstream) : Promise.resolve([]);
    }

    /** The upstream model the next `loadModel` connects to (the editor's Load Model… picks one); null: the upstreams' first. */
    public setUpstreamModel(model: string | null): void {
        this.config.upstream = {...this.config.upstream, model};
    }

    public async unloadModel(): Promise<void> {
        await this.engine.unload();
        this.events.log?.("model: unloaded");
    }

    /** Replaces the accepted keys (rotation applies to the next request). */
    public setApiKeys(keys: string[]): void {
        this.config.apiKeys = keys;
    }

    /** Where the next `start()` listens (the editor applies a changed host/port setting with stop, this, start). */
    public setListenAddress(host: string, port: number): void {
        this.config.host = host;
        this.config.port = port;
    }

    /**
     * Opens the durable store (once) and restores the responses, conversations and finished jobs it kept; `start`
     * does it before serving. Fails when another process holds the data folder.
     */
    public openStorage(): Promise<StoreDatabase | null> {
        const {kind, dataDir} = this.config.storage;
        this.storage ??= kind !== "durable" || dataDir == null ? Promise.resolve(null)
            : StoreDatabase.open(dataDir, this.events.log, {lockWaitMs: this.config.storage.lockWaitMs}).then((db) => {
                this.store.persistTo(db.journal("responses/"), db.entries("responses/"));
                this.conversations.persistTo(db.journal("conversations/"), db.entries("conversations/"));
                this.jobs.persistTo(db.journal("jobs/"), db.entries("jobs/"));
                this.store.onChange((change) => {
                    if (change.type === "clear")
                        void db.purgeDeleted().catch(
                            (error: unknown) => this.events.log?.(`store: purging cleared data failed: ${(error as Error).message}`)
                        );
                });
                this.events.log?.(
                    `store: durable in ${dataDir} (${this.store.stats().entries} responses, ${this.conversations.stats().entries} `
                        + `conversations, ${this.jobs.stats().retained} finished background responses restored)`
                );
                return db;
            }, (error: unknown) => {
                if (!(error instanceof DurableStoreUnavailableError))
                    throw error;
                this.events.log?.(`store: ${error.message}; everything is kept in memory and lost when the server stops`);
                return null;
            });
        return this.storage;
    }

    public async start(): Promise<string> {
        await this.openStorage();
        await this.openLibrary();
        await this.startPromptStateSweeper();
        const {url} = await this.http.listen(this.config.host, this.config.port);
        this.endpoint = url;
        return url;
    }

    public async stop(): Promise<void> {
        await this.http.close();
        this.endpoint = null;
    }

    public get listening(): boolean {
        return this.http.listening;
    }

    /** Stops serving, lets in-flight requests end, then frees the model. */
    public async dispose(): Promise<void> {
        this.libraryWatch?.();
        await this.promptStates?.stop();
        await this.jobs.shutdown();
        await this.stop();
        await this.engine.dispose();
        await (await this.storage?.catch(() => null))?.close();
    }
}

/** Background mode's limits as the service takes them; active jobs share the response store's byte budget. */
function backgroundLimits(settings: HostConfig["background"], storeMaxBytes: () => number): ResponsesServiceOptions["background"] {
    return {
        maxActive: settings.maxJobs,
        maxActivePerOwner: settings.maxJobsPerKey,
        workers: settings.workers,
        deadlineSeconds: settings.deadlineSeconds,
        retentionSeconds: settings.retentionSeconds,
        maxRetained: settings.retainedJobs,
        maxInputBytes: settings.inputMaxBytes,
        events: {maxEvents: settings.eventMaxCount, maxBytes: settings.eventMaxBytes},
        activeBytesBudget: storeMaxBytes
    };
}
