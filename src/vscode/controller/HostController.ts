import type {EngineState, LoadProgress, ModelInfo} from "../../engine/types.js";
import {LocalResponsesHost, type HostEvents} from "../../host/LocalResponsesHost.js";
import {checkExposure} from "../../host/exposure.js";
import type {RequestLogEntry} from "../../server/middleware/requestLog.js";
import type {UpstreamModelListing} from "../../host/upstreamModels.js";
import {
    planSettingsChange, settingId, toHostConfig, type ExtensionSettings, type SettingsChangePlan
} from "../settings/extensionSettings.js";

export type HostControllerDeps = {
    /** The API key from SecretStorage. */
    apiKey: () => Promise<string>,
    /** The upstream engine's key from SecretStorage (none: the upstreams take requests without one). */
    upstreamApiKey?: () => Promise<string | null>,
    /** A model path as written in settings → an absolute path. */
    resolveModelPath: (raw: string) => string,
    log: (line: string) => void,
    onRequest: (entry: RequestLogEntry) => void,
    onPromptProgress?: HostEvents["onPromptProgress"],
    /** The durable store's folder (the extension's global storage); absent: everything lives in memory. */
    dataDir?: string
};

export type ControllerState = {
    server: "stopped" | "starting" | "listening",
    engine: EngineState,
    model: ModelInfo | null,
    /** The model being loaded, or the last one that failed. */
    pendingModelPath: string | null,
    loadProgress: number | null,
    endpoint: string | null,
    lastError: string | null,
    /** What answers: a model on this machine, or the upstream Chat Completions servers (`localResponses.engine`). */
    engineKind: ExtensionSettings["engine"],
    /** The model name sent to the upstreams while connected (`model.id` is the alias clients see); null otherwise. */
    upstreamModel: string | null
};

/** The outcome of a settings change, in words the extension shows. */
export type AppliedSettings = {plan: SettingsChangePlan, message: string | null};

/**
 * Runs the core for the editor, vscode-free so it can be tested with a real model and no editor: creates the
 * host from settings, loads models, starts and stops the server, and applies settings changes with the least
 * disruption each needs (see `planSettingsChange`). Serializes its operations so that a settings change in the
 * middle of a load waits for it instead of racing it.
 */
export class HostController {
    private current: LocalResponsesHost | undefined;
    /** The engine the current core was created with. */
    private hostEngine: ExtensionSettings["engine"] | null = null;
    private settings: ExtensionSettings;
    private serverState: ControllerState["server"] = "stopped";
    private pendingModelPath: string | null = null;
    private loadProgress: number | null = null;
    private lastError: string | null = null;
    private queue: Promise<unknown> = Promise.resolve();
    private readonly changeListeners = new Set<() => void>();
    private readonly hostListeners = new Set<(host: LocalResponsesHost) => void>();

    public constructor(settings: ExtensionSettings, private readonly deps: HostControllerDeps) {
        this.settings = settings;
    }

    /** The running core; created on first use. */
    public get host(): LocalResponsesHost {
        if (this.current == null)
            throw new Error("The host is created by initialize().");
        return this.current;
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
            upstreamModel: host?.upstreamModel ?? null
        };
    }

    public get currentSettings(): ExtensionSettings {
        return this.settings;
    }

    /** Fires on any change of state (server, engine, progress). */
    public onChange(listener: () => void): () => void {
        this.changeListeners.add(listener);
        return () => this.changeListeners.delete(listener);
    }

    /** Fires when a new host replaces the old one (settings that need a rebuild), and once for the first. */
    public onHost(listener: (host: LocalResponsesHost) => void): () => void {
        this.hostListeners.add(listener);
        if (this.current != null)
            listener(this.current);
        return () => this.hostListeners.delete(listener);
    }

    /**
     * Creates the host. With `autoStart` and a model configured, also loads the model and starts the server;
     * otherwise nothing heavy happens (activation stays cheap).
     */
    public initialize(): Promise<void> {
        return this.serialized(async () => {
            await this.createHost();
            const model = this.configuredModel(this.settings);
            if (this.settings.autoStart && model != null) {
                await this.loadNow(model).catch(() => undefined);
                if (this.current?.model != null)
                    await this.startNow().catch(() => undefined);
            }
        });
    }

    public loadModel(modelPath: string): Promise<ModelInfo> {
        return this.serialized(() => this.loadNow(modelPath));
    }

    /** Records a model path chosen by a command, so the settings change it writes next is not applied twice. */
    public adoptModelPath(rawPath: string): void {
        this.settings = {...this.settings, modelPath: rawPath};
    }

    /** What each configured upstream lists (through the host: the face does not talk to upstreams itself). */
    public listUpstreamModels(): Promise<UpstreamModelListing[]> {
        return this.host.listUpstreamModels();
    }

    /**
     * With the upstream engine: connects to `model` (Load Model…'s choice) and adopts it as the upstream model
     * setting, so writing that setting next is not applied a second time. A failed connection keeps the setting
     * as it was (the engine is then disconnected: its state says failed).
     */
    public connectUpstreamModel(model: string): Promise<ModelInfo> {
        return this.serialized(async () => {
            if (this.hostEngine !== "upstream")
                throw new Error("The upstream engine is not running (localResponses.engine is local).");
            const before = this.settings.upstreamModel;
            this.host.setUpstreamModel(model);
            try {
                const info = await this.loadNow(model);
                this.settings = {...this.settings, upstreamModel: model};
                return info;
            } catch (error) {
                this.host.setUpstreamModel(before);
                throw error;
            }
        });
    }

    public unloadModel(): Promise<void> {
        return this.serialized(async () => {
            await this.host.unloadModel();
            this.emitChange();
        });
    }

    public startServer(): Promise<string> {
        return this.serialized(() => this.startNow());
    }

    public stopServer(): Promise<void> {
        return this.serialized(() => this.stopNow());
    }

    public restartServer(): Promise<string> {
        return this.serialized(async () => {
            await this.stopNow();
            return this.startNow();
        });
    }

    public setApiKey(key: string): void {
        this.current?.setApiKeys([key]);
    }

    /** Applies new settings; says what it did (or why nothing was needed). */
    public applySettings(next: ExtensionSettings): Promise<AppliedSettings> {
        return this.serialized(async () => {
            const plan = planSettingsChange(this.settings, next);
            this.settings = next;
            switch (plan.action) {
                case "none":
                    return {plan, message: null};
                case "loadModel": {
                    if (next.modelPath == null) {
                        await this.host.unloadModel();
                        this.emitChange();
                        return {plan, message: "Model setting cleared: the model was unloaded."};
                    }
                    const info = await this.loadNow(this.deps.resolveModelPath(next.modelPath));
                    if (this.serverState === "stopped" && next.autoStart)
                        await this.startNow();
                    return {plan, message: `Model setting changed: loaded ${info.id}.`};
                }
                case "restartServer": {
                    const wasListening = this.serverState === "listening";
                    await this.stopNow();
                    this.host.setListenAddress(next.host, next.port);
                    if (!wasListening)
                        return {plan, message: `Server address set to ${next.host}:${next.port} (the server is stopped).`};
                    const url = await this.startNow();
                    return {plan, message: `Server restarted on ${url}.`};
                }
                case "rebuild":
                    return {plan, message: `Applied ${plan.changed.map(settingId).join(", ")}: ${await this.rebuildNow()}.`};
            }
        });
    }

    /** A new core with the same settings (a new upstream key): the model loaded again and the server restarted if they were. */
    public rebuild(): Promise<string> {
        return this.serialized(() => this.rebuildNow());
    }

    private async rebuildNow(): Promise<string> {
        const wasListening = this.serverState === "listening";
        const hadModel = this.current?.model?.path ?? null;
        // What one engine had loaded means nothing to the other (a file path is no upstream model, and back).
        const sameEngine = this.hostEngine === this.settings.engine;
        await this.disposeHost();
        await this.createHost();
        const model = this.configuredModel(this.settings) ?? (sameEngine ? hadModel : null);
        if (model != null && (hadModel != null || this.settings.autoStart))
            await this.loadNow(model);
        if (wasListening)
            await this.startNow();
        return describeRestart(hadModel != null, wasListening);
    }

    /**
     * What `loadNow` is given: the model file, or with the upstream engine the upstream model's name (the host
     * connects to the upstreams instead of reading a file; "" asks them for their first model).
     */
    private configuredModel(settings: ExtensionSettings): string | null {
        if (settings.engine === "upstream")
            return settings.upstreamModel ?? "";
        return settings.modelPath != null ? this.deps.resolveModelPath(settings.modelPath) : null;
    }

    public dispose(): Promise<void> {
        return this.serialized(() => this.disposeHost());
    }

    private async createHost(): Promise<void> {
        const key = await this.deps.apiKey();
        const config = toHostConfig(this.settings, key, null, await this.deps.upstreamApiKey?.() ?? null);
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
        // Restored now so the inspector shows what was kept; a folder held by another window fails `start` with its name.
        void host.openStorage().catch(() => undefined);
        for (const listener of this.hostListeners)
            listener(host);
        this.emitChange();
    }

    private async disposeHost(): Promise<void> {
        const host = this.current;
        if (host == null)
            return;
        await host.dispose();
        this.serverState = "stopped";
        this.emitChange();
    }

    private async loadNow(modelPath: string): Promise<ModelInfo> {
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

    private async startNow(): Promise<string> {
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

    private async stopNow(): Promise<void> {
        if (this.serverState === "stopped")
            return;
        await this.host.stop();
        this.serverState = "stopped";
        this.deps.log("server: stopped");
        this.emitChange();
    }

    private serialized<T>(operation: () => Promise<T>): Promise<T> {
        const result = this.queue.then(operation, operation);
        this.queue = result.catch(() => undefined);
        return result;
    }

    private emitChange(): void {
        for (const listener of this.changeListeners)
            listener();
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
