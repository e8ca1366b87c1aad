import type * as vscode from "vscode";
import type {VscodeChatState} from "./chatProvider/vscodeChatState.js";
import type {ApiKeySecret} from "./controller/ApiKeySecret.js";
import type {HostController} from "./controller/HostController.js";
import type {UpstreamApiKeySecret} from "./controller/UpstreamApiKeySecret.js";
import type {FirstRunEvent} from "./firstRun/FirstRunProgress.js";
import type {InspectorTarget} from "./inspector/InspectorPanel.js";
import type {InspectorJobs, InspectorResponses} from "./inspector/inspectorSources.js";
import type {LogChannel} from "./log/LogChannel.js";
import type {ServerStats} from "./status/ServerStats.js";

/**
 * What the commands, the sidebar and the first-run walkthrough read and do: the face's parts, not the face.
 * `LocalResponsesExtension` builds them and implements this, so none of them imports it back; each takes the
 * `Pick` of this that it uses, and its signature says what it touches.
 */
export interface CommandContext {
    readonly log: LogChannel;
    readonly controller: HostController;
    readonly secret: ApiKeySecret;
    readonly upstreamSecret: UpstreamApiKeySecret;
    readonly stats: ServerStats;
    /** The walkthrough's steps, ticked when the real thing happened, and the command that opens it. */
    readonly firstRun: {record(event: FirstRunEvent): void, open(): Promise<void>};
    /** Whether the first core exists yet (the store and jobs are read from it). */
    readonly hasHost: boolean;
    /** The current core's store; throws before the first core exists. */
    readonly responses: InspectorResponses;
    /** The current core's background jobs, or null when it runs none. */
    readonly jobs: InspectorJobs | null;
    /** The extension's own folder (media/models.json is in it). */
    readonly extensionUri: vscode.Uri;
    /** Where Download Model… saves and the Models view and the walkthrough look for model files. */
    modelDirectory(): string;
    /** Load Model…'s recent files, most recent first. */
    recentModels(): string[];
    rememberModel(modelPath: string): Promise<void>;
    forgetRecentModel(modelPath: string): Promise<void>;
    notifyModelsChanged(): void;
    /** Fires when the recent or downloaded model files change. */
    onModelsChanged(listener: () => void): () => void;
    /** Fires when a new core replaces the old one (its store and jobs are new). */
    onHostChanged(listener: () => void): () => void;
    /** Opens the inspector, on a response or a job when one is given (a string is a response id). */
    openInspector(target?: string | InspectorTarget): void;
    /** Whether the served model is offered to the editor's own chat (`vscode.lm`), and when that changes. */
    readonly vscodeChat: {readonly state: VscodeChatState, onChange(listener: () => void): () => void};
}
