import * as vscode from "vscode";
import type {LocalResponsesHost} from "../host/LocalResponsesHost.js";
import {ChatProviderRegistration} from "./chatProvider/ChatProviderRegistration.js";
import {ApiKeySecret} from "./controller/ApiKeySecret.js";
import {UpstreamApiKeySecret} from "./controller/UpstreamApiKeySecret.js";
import type {CommandContext} from "./CommandContext.js";
import {Commands} from "./commands/Commands.js";
import {EventLoopMonitor} from "./log/EventLoopMonitor.js";
import {InspectorPanel, inspectorViewType, type InspectorData, type InspectorTarget} from "./inspector/InspectorPanel.js";
import {hostJobs} from "./inspector/hostJobs.js";
import {HostController} from "./controller/HostController.js";
import type {BackgroundJobsView} from "./inspector/BackgroundJobsView.js";
import type {InspectorJobs, InspectorResponses} from "./inspector/inspectorSources.js";
import {ServerStats} from "./status/ServerStats.js";
import {TimingHistory} from "./inspector/TimingHistory.js";
import {StoreResponses} from "./inspector/StoreResponses.js";
import {LogChannel} from "./log/LogChannel.js";
import {rememberRecent} from "./models/recentModels.js";
import {Settings} from "./settings/Settings.js";
import {Sidebar} from "./sidebar/Sidebar.js";
import {FirstRun} from "./firstRun/FirstRun.js";
import {StatusBar} from "./status/StatusBar.js";

const recentModelsKey = "localResponses.recentModels";

/**
 * The VS Code face, wired: settings → controller → host; the status bar, the inspector, the log and the
 * commands read the controller. `activate` builds this and returns at once: the model loads in the
 * background, and only when `autoStart` is on and a model is configured.
 */
export class LocalResponsesExtension implements CommandContext, vscode.Disposable {
    public readonly log = new LogChannel();
    public readonly secret: ApiKeySecret;
    public readonly upstreamSecret: UpstreamApiKeySecret;
    public readonly controller: HostController;
    public readonly stats = new ServerStats();
    public readonly timings = new TimingHistory();
    private offTimings: (() => void) | undefined;
    public readonly statusBar: StatusBar;
    public readonly firstRun: FirstRun;
    /** The served model in the editor's own chat (`vscode.lm`), while `localResponses.chatProvider.enabled` is on. */
    public readonly vscodeChat: ChatProviderRegistration;
    private readonly disposables: vscode.Disposable[] = [];
    private monitor: EventLoopMonitor | undefined;
    private responsesSource: InspectorResponses | undefined;
    private jobsSource: BackgroundJobsView | null = null;
    private readonly hostListeners = new Set<() => void>();
    private readonly modelListeners = new Set<() => void>();
    /** Settles when the first core exists: the inspector reads its store as soon as it is attached. */
    private readonly hostCreated: Promise<void>;
    private markHostCreated: () => void = () => undefined;

    public constructor(public readonly context: vscode.ExtensionContext) {
        this.secret = new ApiKeySecret(context.secrets);
        this.upstreamSecret = new UpstreamApiKeySecret(context.secrets);
        this.hostCreated = new Promise((resolve) => this.markHostCreated = resolve);
        const {settings, problems} = Settings.read();
        for (const problem of problems)
            this.log.warn(`settings: ${problem}`);
        this.controller = new HostController(settings, {
            apiKey: () => this.secret.get(),
            upstreamApiKey: () => this.upstreamSecret.get(),
            resolveModelPath: (raw) => Settings.resolveModelPath(raw),
            log: (line) => this.log.info(line),
            onRequest: (entry) => this.log.request(entry),
            onPromptProgress: (id, progress) => this.stats.recordPromptProgress(id, progress),
            dataDir: vscode.Uri.joinPath(context.globalStorageUri, "data").fsPath
        });
        this.controller.onHost((host) => this.followHost(host));
        this.statusBar = new StatusBar(this.controller, this.stats,
            () => this.jobsSource?.list().filter((job) => job.cancellable).length ?? null);
        this.firstRun = new FirstRun(this);
        this.vscodeChat = new ChatProviderRegistration(this.controller, (line) => this.log.info(line));
        this.vscodeChat.update(settings.chatProviderEnabled);

        this.disposables.push(
            this.log,
            this.vscodeChat,
            this.statusBar,
            new Commands(this),
            new Sidebar(this),
            this.firstRun,
            Settings.onDidChange(() => void this.applySettings()),
            vscode.window.registerWebviewPanelSerializer(inspectorViewType, {
                // After a window reload VS Code restores the panel right after activation, before the core is
                // created (the key comes from SecretStorage asynchronously): attaching earlier would throw.
                deserializeWebviewPanel: async (panel) => {
                    await this.hostCreated;
                    InspectorPanel.restore(panel, context.extensionUri, this.inspectorData());
                }
            })
        );
    }

    /** Creates the core and, with autoStart and a model configured, loads it and starts serving. */
    public start(): void {
        this.controller.initialize().then(() => {
            const {model, endpoint, lastError} = this.controller.state;
            if (lastError != null)
                void vscode.window.showErrorMessage(`Local Responses: ${lastError}`, "Show Logs").then(
                    (choice) => choice != null && this.log.show()
                );
            else if (model != null && endpoint != null)
                this.log.info(`ready: ${model.id} on ${endpoint}`);
        }, (error: unknown) => this.log.error(`start: ${(error as Error).message}`));
    }

    /** Opens the inspector, on a response or a job when one is given (a string is a response id). */
    public openInspector(target?: string | InspectorTarget): void {
        InspectorPanel.show(this.context.extensionUri, this.inspectorData(), typeof target === "string" ? {response: target} : target);
    }

    /** Whether the first core exists yet (the store and jobs are read from it). */
    public get hasHost(): boolean {
        return this.responsesSource != null;
    }

    /** Fires when a new core replaces the old one (its store and jobs are new). */
    public onHostChanged(listener: () => void): () => void {
        this.hostListeners.add(listener);
        return () => this.hostListeners.delete(listener);
    }

    /** Fires when the recent or downloaded model files change. */
    public onModelsChanged(listener: () => void): () => void {
        this.modelListeners.add(listener);
        return () => this.modelListeners.delete(listener);
    }

    public notifyModelsChanged(): void {
        for (const listener of this.modelListeners)
            listener();
    }

    public get extensionUri(): vscode.Uri {
        return this.context.extensionUri;
    }

    public modelDirectory(): string {
        return Settings.downloadDirectory(this.controller.currentSettings, this.context.globalStorageUri);
    }

    /** Load Model…'s recent files, most recent first. */
    public recentModels(): string[] {
        return this.context.globalState.get<string[]>(recentModelsKey, []);
    }

    public async rememberModel(modelPath: string): Promise<void> {
        await this.context.globalState.update(recentModelsKey, rememberRecent(this.recentModels(), modelPath));
        this.notifyModelsChanged();
    }

    public async forgetRecentModel(modelPath: string): Promise<void> {
        await this.context.globalState.update(recentModelsKey, this.recentModels().filter((entry) => entry !== modelPath));
        this.notifyModelsChanged();
    }

    public get responses(): InspectorResponses {
        if (this.responsesSource == null)
            throw new Error("The host is not created yet.");
        return this.responsesSource;
    }

    public get jobs(): InspectorJobs | null {
        return this.jobsSource;
    }

    private followHost(host: LocalResponsesHost): void {
        this.stats.attach(host);
        this.offTimings?.();
        this.offTimings = host.engine.onGeneration((summary) => this.timings.record(summary));
        this.monitor?.dispose();
        this.monitor = new EventLoopMonitor(host.engine.activity, (line) => this.log.info(line));
        this.responsesSource = new StoreResponses(host.store);
        this.jobsSource?.dispose();
        this.jobsSource = hostJobs(host);
        for (const listener of this.hostListeners)
            listener();
        this.markHostCreated();
    }

    private inspectorData(): InspectorData {
        return {
            responses: () => this.responses,
            jobs: () => this.jobsSource,
            status: () => this.statusBar.view,
            timings: () => this.timings.list(),
            responseShown: () => this.firstRun.record("responseSeen"),
            subscribe: (listeners) => {
                let offSources: (() => void)[] = [];
                const wire = () => {
                    for (const off of offSources)
                        off();
                    offSources = [this.responses.onChange(listeners.responses)];
                    if (this.jobsSource != null)
                        offSources.push(this.jobsSource.onChange(listeners.jobs));
                };
                wire();
                const onHost = () => {
                    wire();
                    listeners.sources();
                };
                this.hostListeners.add(onHost);
                const offStatus = this.statusBar.onRender(listeners.status);
                const offTimings = this.timings.onChange(listeners.timings);
                return () => {
                    offTimings();
                    for (const off of offSources)
                        off();
                    this.hostListeners.delete(onHost);
                    offStatus();
                };
            }
        };
    }

    private async applySettings(): Promise<void> {
        const {settings, problems} = Settings.read();
        for (const problem of problems) {
            this.log.warn(`settings: ${problem}`);
            void vscode.window.showWarningMessage(`Local Responses: ${problem}`);
        }
        this.vscodeChat.update(settings.chatProviderEnabled);
        try {
            const {message} = await this.controller.applySettings(settings);
            if (message != null) {
                this.log.info(`settings: ${message}`);
                void vscode.window.showInformationMessage(`Local Responses: ${message}`);
            }
        } catch (error) {
            const message = (error as Error).message;
            this.log.error(`settings: ${message}`);
            void vscode.window.showErrorMessage(`Local Responses: ${message}`);
        }
    }

    public async dispose(): Promise<void> {
        this.monitor?.dispose();
        this.jobsSource?.dispose();
        this.offTimings?.();
        this.stats.dispose();
        for (const disposable of this.disposables)
            disposable.dispose();
        await this.controller.dispose();
    }
}
