import * as vscode from "vscode";
import {ChatProviderRegistration} from "./chatProvider/ChatProviderRegistration.js";
import {CompletionsFeature} from "./completions/CompletionsFeature.js";
import {ApiKeySecret} from "./controller/ApiKeySecret.js";
import {UpstreamApiKeySecret} from "./controller/UpstreamApiKeySecret.js";
import {Commands, type CommandPorts} from "./commands/Commands.js";
import {InspectorPanel, inspectorViewType, type InspectorData, type InspectorTarget} from "./inspector/InspectorPanel.js";
import {HostController} from "./controller/HostController.js";
import {HostSession} from "./HostSession.js";
import {sessionInspectorData} from "./inspector/sessionInspectorData.js";
import {ModelFiles} from "./models/ModelFiles.js";
import {ServerStats} from "./status/ServerStats.js";
import {TimingHistory} from "./inspector/TimingHistory.js";
import {LogChannel} from "./log/LogChannel.js";
import {Settings} from "./settings/Settings.js";
import {Sidebar, type SidebarContext} from "./sidebar/Sidebar.js";
import {FirstRun} from "./firstRun/FirstRun.js";
import {StatusBar} from "./status/StatusBar.js";
import {useGpuBuildsOf} from "../host/gpuCommand.js";

/**
 * The VS Code face, wired: settings → controller → host; the status bar, the inspector, the log and the
 * commands read the controller. `activate` builds this and returns at once: the model loads in the
 * background, and only when `autoStart` is on and a model is configured.
 */
export class LocalResponsesExtension implements CommandPorts, SidebarContext, vscode.Disposable {
    public readonly log = new LogChannel();
    public readonly secret: ApiKeySecret;
    public readonly upstreamSecret: UpstreamApiKeySecret;
    public readonly controller: HostController;
    public readonly stats = new ServerStats();
    public readonly timings = new TimingHistory();
    public readonly session: HostSession;
    public readonly models: ModelFiles;
    public readonly statusBar: StatusBar;
    public readonly firstRun: FirstRun;
    /** The served model in the editor's own chat (`vscode.lm`), while `localResponses.chatProvider.enabled` is on. */
    public readonly vscodeChat: ChatProviderRegistration;
    /** Code completion as you type (ghost text) from the model, in process. */
    public readonly completions: CompletionsFeature;
    private readonly disposables: vscode.Disposable[] = [];

    public constructor(public readonly context: vscode.ExtensionContext) {
        this.secret = new ApiKeySecret(context.secrets);
        this.upstreamSecret = new UpstreamApiKeySecret(context.secrets);
        // GPU builds fetched by Enable GPU… (in <global storage>/gpu), for the engine here and in its model processes.
        useGpuBuildsOf(context.globalStorageUri.fsPath);
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
        this.session = new HostSession(this.controller, this.stats, this.timings, (line) => this.log.info(line));
        this.models = new ModelFiles(context.globalState,
            () => Settings.downloadDirectory(this.controller.currentSettings, context.globalStorageUri));
        this.statusBar = new StatusBar(this.controller, this.stats,
            () => this.session.jobs?.list().filter((job) => job.cancellable).length ?? null);
        this.firstRun = new FirstRun(this);
        this.vscodeChat = new ChatProviderRegistration(this.controller, (line) => this.log.info(line));
        this.vscodeChat.update(settings.chatProviderEnabled);
        this.completions = new CompletionsFeature(this.controller, settings, (line) => this.log.info(line));

        this.disposables.push(
            this.session,
            this.log,
            this.vscodeChat,
            this.completions,
            this.statusBar,
            new Commands(this),
            new Sidebar(this),
            this.firstRun,
            Settings.onDidChange(() => void this.applySettings()),
            vscode.window.registerWebviewPanelSerializer(inspectorViewType, {
                // After a window reload VS Code restores the panel right after activation, before the core is
                // created (the key comes from SecretStorage asynchronously): attaching earlier would throw.
                deserializeWebviewPanel: async (panel) => {
                    await this.session.created;
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

    public get extensionUri(): vscode.Uri {
        return this.context.extensionUri;
    }

    private inspectorData(): InspectorData {
        return sessionInspectorData(this.session, this.statusBar, this.timings, this.firstRun);
    }

    private async applySettings(): Promise<void> {
        const {settings, problems} = Settings.read();
        for (const problem of problems) {
            this.log.warn(`settings: ${problem}`);
            void vscode.window.showWarningMessage(`Local Responses: ${problem}`);
        }
        this.vscodeChat.update(settings.chatProviderEnabled);
        this.completions.update(settings);
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
        this.stats.dispose();
        for (const disposable of this.disposables)
            disposable.dispose();
        await this.controller.dispose();
    }
}
