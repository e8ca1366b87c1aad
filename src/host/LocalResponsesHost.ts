import {LlamaEngine, type LoadProgress} from "../engine/LlamaEngine.js";
import type {EngineState, ModelInfo} from "../engine/types.js";
import {CompactionCodec} from "../responses/compaction.js";
import {Compactor} from "../responses/Compactor.js";
import {ResponsesService, type PreparedResponse, type ResponsesServiceOptions} from "../responses/ResponsesService.js";
import {createApp} from "../server/app.js";
import {HttpServer} from "../server/HttpServer.js";
import {ResponsesWebSocketServer} from "../server/websocket/ResponsesWebSocketServer.js";
import type {RequestLogEntry} from "../server/middleware/requestLog.js";
import {ServerMetrics} from "../server/metrics.js";
import {BackgroundJobs} from "../store/BackgroundJobs.js";
import {ConversationStore} from "../store/ConversationStore.js";
import {ResponseStore} from "../store/ResponseStore.js";
import {StreamReaderSlots} from "../store/StreamReaderSlots.js";
import type {HostConfig} from "./config.js";

export type HostEvents = {
    log?: (line: string) => void,
    onRequest?: (entry: RequestLogEntry) => void,
    onEngineState?: (state: EngineState) => void,
    /** Each response's prompt evaluation, step by step (the editor's status bar shows it). */
    onPromptProgress?: ResponsesServiceOptions["onPromptProgress"]
};

/**
 * The one core both faces run: the engine, the stores, the Responses service and the HTTP server,
 * wired together. The CLI starts one from flags; the VS Code extension from its settings.
 */
export class LocalResponsesHost {
    public readonly engine: LlamaEngine;
    public readonly store: ResponseStore;
    public readonly responses: ResponsesService;
    public readonly conversations: ConversationStore;
    public readonly jobs: BackgroundJobs<PreparedResponse>;
    public readonly metrics: ServerMetrics;
    private readonly http: HttpServer;
    private endpoint: string | null = null;

    public constructor(private readonly config: HostConfig, private readonly events: HostEvents = {}) {
        this.engine = new LlamaEngine({
            threads: config.threads,
            contextSize: config.contextSize ?? undefined,
            parallel: config.parallel,
            queueLimit: config.queueLimit,
            gpu: config.gpu,
            flashAttention: config.flashAttention,
            stopSequences: config.stopSequences,
            alias: config.modelAlias ?? undefined
        });
        if (events.onEngineState != null)
            this.engine.onStateChange(events.onEngineState);
        this.store = new ResponseStore(config.store);
        this.conversations = new ConversationStore(config.conversations);
        const compactor = new Compactor(this.engine, new CompactionCodec(config.compaction.secret), config.compaction);
        this.responses = new ResponsesService(this.engine, this.store, {
            compactor,
            conversations: this.conversations,
            backgroundResponse: (owner, id) => {
                const job = this.jobs.get(owner, id);
                return job == null ? undefined : {response: job.payload.response, inputItems: job.payload.history};
            },
            onGeneration: (stats) => this.metrics.recordGeneration(stats),
            onGenerationAborted: (kind) => this.metrics.recordAbortedGeneration(kind),
            onPromptProgress: events.onPromptProgress,
            strictModel: config.strictModel,
            strictTools: config.strictTools,
            reasoningSecret: config.reasoningSecret,
            reasoningEchoMaxBytes: config.reasoningEchoMaxBytes,
            log: events.log
        });
        this.jobs = this.createJobs(config.background);
        const readers = new StreamReaderSlots({maxReaders: config.background.streamReaders, maxReadersPerOwner: config.background.streamReadersPerKey});
        this.metrics = new ServerMetrics({engine: this.engine, store: this.store, conversations: this.conversations, jobs: this.jobs, readers});
        this.http = new HttpServer(createApp({
            engine: this.engine,
            responses: this.responses,
            stateful: {
                jobs: this.jobs, readers, conversations: this.conversations, compactor, metrics: this.metrics,
                streamWriteTimeoutMs: config.background.streamWriteTimeoutSeconds * 1000
            },
            apiKeys: () => this.config.apiKeys,
            allowedOrigins: config.allowedOrigins,
            bodyLimitBytes: config.bodyLimitBytes,
            streamKeepAliveMs: config.streamKeepAliveSeconds * 1000,
            onRequest: events.onRequest,
            log: events.log
        }), new ResponsesWebSocketServer({
            responses: this.responses,
            apiKeys: () => this.config.apiKeys,
            allowedOrigins: config.allowedOrigins,
            maxPayloadBytes: config.bodyLimitBytes,
            pingIntervalMs: config.streamKeepAliveSeconds * 1000,
            log: events.log
        }));
    }

    /** Background jobs run admit + run like a foreground request, on the engine's own sequence pool and queue. */
    private createJobs(settings: HostConfig["background"]): BackgroundJobs<PreparedResponse> {
        return new BackgroundJobs<PreparedResponse>(async (prepared, sink, signal) => {
            const lease = await this.responses.admit(prepared, signal);
            return this.responses.run(prepared, lease, {sink, signal});
        }, {
            maxActive: settings.maxJobs,
            maxActivePerOwner: settings.maxJobsPerKey,
            workers: settings.workers,
            deadlineSeconds: settings.deadlineSeconds,
            retentionSeconds: settings.retentionSeconds,
            maxRetained: settings.retainedJobs,
            maxInputBytes: settings.inputMaxBytes,
            events: {maxEvents: settings.eventMaxCount, maxBytes: settings.eventMaxBytes},
            activeBytesBudget: () => this.store.maxBytes,
            // Full as the engine means it: no free sequence and no room left to wait for one.
            generationQueueFull: () => {
                const stats = this.engine.stats();
                return stats.sequencesBusy >= stats.sequencesTotal && stats.queueDepth >= stats.queueLimit;
            },
            // Completed and incomplete jobs were stored by `run`; failed and cancelled ones stay retrievable too.
            onFinished: (job) => {
                const {response, history, params} = job.payload as PreparedResponse;
                if ((response.status === "failed" || response.status === "cancelled") && params.store)
                    this.store.put(job.owner, response, history);
            }
        });
    }

    public get url(): string | null {
        return this.endpoint;
    }

    public get model(): ModelInfo | null {
        return this.engine.model;
    }

    public async loadModel(modelPath: string, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
        const info = await this.engine.load(modelPath, onProgress);
        this.events.log?.(`model: loaded ${info.id} (context ${info.contextSize} × ${info.sequences} sequences, ${info.chatWrapper})`);
        return info;
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

    public async start(): Promise<string> {
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
        await this.jobs.shutdown();
        await this.stop();
        await this.engine.dispose();
    }
}
