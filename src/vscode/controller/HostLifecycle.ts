import type {LoadProgress, ModelInfo} from "../../engine/types.js";
import {LocalResponsesHost} from "../../host/LocalResponsesHost.js";
import {checkExposure} from "../../host/exposure.js";
import {upstreamBesideModels} from "../../host/settings/settingRules.js";
import {Emitter} from "../../protocol/Emitter.js";
import {toHostConfig, type ExtensionSettings} from "../settings/extensionSettings.js";
import type {ControllerState, HostControllerDeps} from "./controllerState.js";

/**
 * The core's lifecycle for the editor, one step at a time: create and dispose the host, load a model, start and stop
 * the server, rebuild; it keeps the state the status bar and the views show and says when it changes. It does not
 * serialize: `HostController` runs one step at a time and decides which steps a settings change needs.
 */
export class HostLifecycle {
    private current: LocalResponsesHost | undefined;
    /** The engine the current core was created with. */
    private hostEngine: ExtensionSettings["engine"] | null = null;
    private serverState: ControllerState["server"] = "stopped";
    private pendingModelPath: string | null = null;
    private loadProgress: number | null = null;
    private lastError: string | null = null;
    private readonly changes = new Emitter<void>();
    private readonly hosts = new Emitter<LocalResponsesHost>();

    /** `settings` are read at each step: the controller replaces them as they change. */
    public constructor(public settings: ExtensionSettings, private readonly deps: HostControllerDeps) {}

    /** The running core; created on first use. */
    public get host(): LocalResponsesHost {
        if (this.current == null)
            throw new Error("The host is created by initialize().");
        return this.current;
    }

    public get hasHost(): boolean {
        return this.current != null;
    }

    /** The engine the current core runs (null before the first core). */
    public get engine(): ExtensionSettings["engine"] | null {
        return this.hostEngine;
    }

    public get server(): ControllerState["server"] {
        return this.serverState;
    }

    public get state(): ControllerState {
        const host = this.current;
        return {
            server: this.serverState,
            engine: host?.engine.state ?? "unloaded",
            model: host?.model ?? null,
            pendingModelPath: this.pendingModelPath,
            loadProgress: this.loadProgress,
            endpoint: host?.url ?? null,
            lastError: this.lastError,
            engineKind: this.hostEngine ?? this.settings.engine,
            upstreamModel: host?.upstreamModel ?? null,
            library: host?.library?.list() ?? null
        };
    }

    /** Fires on any change of state (server, engine, progress). */
    public onChange(listener: () => void): () => void {
        return this.changes.on(listener);
    }

    /** Fires when a new host replaces the old one (settings that need a rebuild), and once for the first. */
    public onHost(listener: (host: LocalResponsesHost) => void): () => void {
        const off = this.hosts.on(listener);
        if (this.current != null)
            listener(this.current);
        return off;
    }

    public async rebuild(): Promise<string> {
        const wasListening = this.serverState === "listening";
        const hadModel = this.current?.model?.path ?? null;
        const servedBefore = hadModel != null || this.current?.library != null;
        // What one engine had loaded means nothing to the other (a file path is no upstream model, and back).
        const sameEngine = this.hostEngine === this.settings.engine;
        await this.disposeHost();
        await this.createHost();
        const model = this.configuredModel(this.settings) ?? (sameEngine ? hadModel : null);
        if (model != null && (hadModel != null || this.settings.autoStart))
            await this.load(model);
        // A models folder given where nothing was served (Serve a Models Folder… on a first run) starts the server as
        // autoStart starts it with a model; no load first: its requests load their models. A stopped server stays so.
        if (wasListening || (!servedBefore && this.startsWithoutModel(model)))
            await this.start();
        return describeRestart(hadModel != null, wasListening);
    }

    /**
     * Whether `autoStart` starts the server with nothing to load first: a models folder and no model file (`model`, what
     * `configuredModel` gave); its requests load their models.
     */
    public startsWithoutModel(model: string | null): boolean {
        return model == null && this.settings.autoStart && this.current?.library != null;
    }

    /**
     * What `load` is given: the model file, or with the upstream engine the upstream model's name (the host
     * connects to the upstreams instead of reading a file; "" asks them for their first model).
     */
    public configuredModel(settings: ExtensionSettings): string | null {
        if (settings.engine === "upstream")
            return settings.upstreamModel ?? "";
        return settings.modelPath != null ? this.deps.resolveModelPath(settings.modelPath) : null;
    }

    public async createHost(): Promise<void> {
        const key = await this.deps.apiKey();
        const config = toHostConfig(this.settings, key, null, await this.deps.upstreamApiKey?.() ?? null);
        if (config.library.modelsDir != null) {
            config.library.modelsDir = this.deps.resolveModelPath(config.library.modelsDir);
            // The model file setting is the library's default model (listed even when it lies outside the folder).
            config.modelPath = this.configuredModel(this.settings);
            // Upstream URLs with the local engine serve beside the folder's models, routed by name, as the CLI's
            // `--upstream` beside `--models-dir` does; without a folder the engine setting picks one or the other.
            config.library.withUpstream = upstreamBesideModels(config);
        }
        if (this.deps.dataDir != null)
            // A reloaded window's old extension host may still hold the folder for a moment.
            config.storage = {kind: "durable", dataDir: this.deps.dataDir, lockWaitMs: 10_000};
        const host = new LocalResponsesHost(config, {
            log: this.deps.log,
            onRequest: this.deps.onRequest,
            onEngineState: () => this.emitChange(),
            onPromptProgress: this.deps.onPromptProgress
        });
        this.current = host;
        this.hostEngine = this.settings.engine;
        // A library's models load, unload and appear on their own: the editor's chat and views follow them.
        host.library?.onChange(() => this.emitChange());
        // Restored now so the inspector shows what was kept; a folder held by another window fails `start` with its name.
        void host.openStorage().catch(() => undefined);
        this.hosts.emit(host);
        this.emitChange();
    }

    public async disposeHost(): Promise<void> {
        const host = this.current;
        if (host == null)
            return;
        await host.dispose();
        this.serverState = "stopped";
        this.emitChange();
    }

    public async load(modelPath: string): Promise<ModelInfo> {
        this.pendingModelPath = modelPath;
        this.loadProgress = 0;
        this.lastError = null;
        this.emitChange();
        try {
            const info = await this.host.loadModel(modelPath, (progress) => this.onProgress(progress));
            this.pendingModelPath = null;
            return info;
        } catch (error) {
            this.lastError = error instanceof Error ? error.message : String(error);
            this.deps.log(`model: ${this.lastError}`);
            throw error;
        } finally {
            this.loadProgress = null;
            this.emitChange();
        }
    }

    private onProgress(progress: LoadProgress): void {
        // Binding and context take little time; the model file is what a person waits for.
        const overall = progress.phase === "binding" ? 0 : progress.phase === "model" ? progress.progress * 0.9
            : 0.9 + progress.progress * 0.1;
        this.loadProgress = overall;
        this.emitChange();
    }

    public async start(): Promise<string> {
        if (this.serverState === "listening" && this.current?.url != null)
            return this.current.url;
        this.serverState = "starting";
        this.emitChange();
        try {
            const url = await this.host.start();
            this.serverState = "listening";
            this.deps.log(`server: listening on ${url}`);
            // The editor always requires its key, so an exposed address is permitted: said, not refused.
            for (const warning of checkExposure({
                host: this.settings.host, authRequired: true, allowedOrigins: this.settings.allowedOrigins
            }))
                this.deps.log(`server: warning: ${warning}`);
            return url;
        } catch (error) {
            this.serverState = "stopped";
            this.lastError = `Cannot listen on ${this.settings.host}:${this.settings.port}: ${(error as Error).message}`;
            this.deps.log(`server: ${this.lastError}`);
            throw new Error(this.lastError, {cause: error});
        } finally {
            this.emitChange();
        }
    }

    public async stop(): Promise<void> {
        if (this.serverState === "stopped")
            return;
        await this.host.stop();
        this.serverState = "stopped";
        this.deps.log("server: stopped");
        this.emitChange();
    }

    /** Says that the state changed (also for a step the controller takes on the host itself, such as unloading). */
    public emitChange(): void {
        this.changes.emit();
    }
}

function describeRestart(hadModel: boolean, wasListening: boolean): string {
    if (hadModel && wasListening)
        return "model reloaded and server restarted";
    if (hadModel)
        return "model reloaded";
    if (wasListening)
        return "server restarted";
    return "takes effect when the model loads";
}
