import type {ModelInfo} from "../../engine/types.js";
import type {LocalResponsesHost} from "../../host/LocalResponsesHost.js";
import type {UpstreamModelListing} from "../../host/upstreamModels.js";
import {planSettingsChange, settingId, type ExtensionSettings, type SettingsChangePlan} from "../settings/extensionSettings.js";
import type {ControllerState, HostControllerDeps} from "./controllerState.js";
import {HostLifecycle} from "./HostLifecycle.js";

/** The outcome of a settings change, in words the extension shows. */
export type AppliedSettings = {plan: SettingsChangePlan, message: string | null};

/**
 * Runs the core for the editor, vscode-free so it can be tested with a real model and no editor: creates the
 * host from settings, loads models, starts and stops the server, and applies settings changes with the least
 * disruption each needs (see `planSettingsChange`). Serializes its operations so that a settings change in the
 * middle of a load waits for it instead of racing it; each step itself is `HostLifecycle`'s.
 */
export class HostController {
    private readonly lifecycle: HostLifecycle;
    private queue: Promise<unknown> = Promise.resolve();

    public constructor(settings: ExtensionSettings, private readonly deps: HostControllerDeps) {
        this.lifecycle = new HostLifecycle(settings, deps);
    }

    /** The running core; created on first use. */
    public get host(): LocalResponsesHost {
        return this.lifecycle.host;
    }

    public get state(): ControllerState {
        return this.lifecycle.state;
    }

    public get currentSettings(): ExtensionSettings {
        return this.lifecycle.settings;
    }

    /** Fires on any change of state (server, engine, progress). */
    public onChange(listener: () => void): () => void {
        return this.lifecycle.onChange(listener);
    }

    /** Fires when a new host replaces the old one (settings that need a rebuild), and once for the first. */
    public onHost(listener: (host: LocalResponsesHost) => void): () => void {
        return this.lifecycle.onHost(listener);
    }

    /**
     * Creates the host. With `autoStart` and a model configured, also loads the model and starts the server; with a
     * models folder alone, starts the server (its requests load their models); otherwise nothing heavy happens.
     */
    public initialize(): Promise<void> {
        return this.serialized(async () => {
            const lifecycle = this.lifecycle;
            await lifecycle.createHost();
            const model = lifecycle.configuredModel(lifecycle.settings);
            if (lifecycle.settings.autoStart && model != null) {
                await lifecycle.load(model).catch(() => undefined);
                if (lifecycle.hasHost && lifecycle.host.model != null)
                    await lifecycle.start().catch(() => undefined);
            } else if (lifecycle.startsWithoutModel(model))
                await lifecycle.start().catch(() => undefined);
        });
    }

    public loadModel(modelPath: string): Promise<ModelInfo> {
        return this.serialized(() => this.lifecycle.load(modelPath));
    }

    /** Records a model path chosen by a command, so the settings change it writes next is not applied twice. */
    public adoptModelPath(rawPath: string): void {
        this.lifecycle.settings = {...this.lifecycle.settings, modelPath: rawPath};
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
            const lifecycle = this.lifecycle;
            if (lifecycle.engine !== "upstream")
                throw new Error("The upstream engine is not running (localResponses.engine is local).");
            const before = lifecycle.settings.upstreamModel;
            this.host.setUpstreamModel(model);
            try {
                const info = await lifecycle.load(model);
                lifecycle.settings = {...lifecycle.settings, upstreamModel: model};
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
            this.lifecycle.emitChange();
        });
    }

    public startServer(): Promise<string> {
        return this.serialized(() => this.lifecycle.start());
    }

    public stopServer(): Promise<void> {
        return this.serialized(() => this.lifecycle.stop());
    }

    public restartServer(): Promise<string> {
        return this.serialized(async () => {
            await this.lifecycle.stop();
            return this.lifecycle.start();
        });
    }

    public setApiKey(key: string): void {
        if (this.lifecycle.hasHost)
            this.host.setApiKeys([key]);
    }

    /** Applies new settings; says what it did (or why nothing was needed). */
    public applySettings(next: ExtensionSettings): Promise<AppliedSettings> {
        return this.serialized(async () => {
            const lifecycle = this.lifecycle;
            const plan = planSettingsChange(lifecycle.settings, next);
            lifecycle.settings = next;
            switch (plan.action) {
                case "none":
                    return {plan, message: null};
                case "loadModel": {
                    if (next.modelPath == null) {
                        await this.host.unloadModel();
                        lifecycle.emitChange();
                        return {plan, message: "Model setting cleared: the model was unloaded."};
                    }
                    const info = await lifecycle.load(this.deps.resolveModelPath(next.modelPath));
                    if (lifecycle.server === "stopped" && next.autoStart)
                        await lifecycle.start();
                    return {plan, message: `Model setting changed: loaded ${info.id}.`};
                }
                case "restartServer": {
                    const wasListening = lifecycle.server === "listening";
                    await lifecycle.stop();
                    this.host.setListenAddress(next.host, next.port);
                    if (!wasListening)
                        return {plan, message: `Server address set to ${next.host}:${next.port} (the server is stopped).`};
                    const url = await lifecycle.start();
                    return {plan, message: `Server restarted on ${url}.`};
                }
                case "rebuild":
                    return {plan, message: `Applied ${plan.changed.map(settingId).join(", ")}: ${await lifecycle.rebuild()}.`};
            }
        });
    }

    /** A new core with the same settings (a new upstream key): the model loaded again and the server restarted if they were. */
    public rebuild(): Promise<string> {
        return this.serialized(() => this.lifecycle.rebuild());
    }

    public dispose(): Promise<void> {
        return this.serialized(() => this.lifecycle.disposeHost());
    }

    private serialized<T>(operation: () => Promise<T>): Promise<T> {
        const result = this.queue.then(operation, operation);
        this.queue = result.catch(() => undefined);
        return result;
    }
}
