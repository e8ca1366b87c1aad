import type * as vscode from "vscode";
import type {VscodeChatState} from "./chatProvider/vscodeChatState.js";
import type {ApiKeySecret} from "./controller/ApiKeySecret.js";
import type {HostController} from "./controller/HostController.js";
import type {UpstreamApiKeySecret} from "./controller/UpstreamApiKeySecret.js";
import type {FirstRunEvent} from "./firstRun/FirstRunProgress.js";
import type {InspectorTarget} from "./inspector/InspectorPanel.js";
import type {HostSession} from "./HostSession.js";
import type {LogChannel} from "./log/LogChannel.js";
import type {ModelFiles} from "./models/ModelFiles.js";
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
    /** The current core's store and background jobs, and when a new core replaces them. */
    readonly session: Pick<HostSession, "hasHost" | "responses" | "jobs" | "onHostChanged" | "forgetPromptStates">;
    /** The extension's own folder (media/models.json is in it). */
    readonly extensionUri: vscode.Uri;
    /** Recent and downloaded model files. */
    readonly models: ModelFiles;
    /** Opens the inspector, on a response or a job when one is given (a string is a response id). */
    openInspector(target?: string | InspectorTarget): void;
    /** Whether the served model is offered to the editor's own chat (`vscode.lm`), and when that changes. */
    readonly vscodeChat: {readonly state: VscodeChatState, onChange(listener: () => void): () => void};
}
