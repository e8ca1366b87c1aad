import type * as vscode from "vscode";
import type {HostController} from "../controller/HostController.js";
import type {LogChannel} from "../log/LogChannel.js";
import type {ModelFiles} from "./ModelFiles.js";

/** What the model commands (load, connect, download) use of the face: each takes the `Pick` it needs. */
export type ModelCommandPorts = {
    controller: HostController,
    log: LogChannel,
    /** Recent and downloaded model files. */
    models: ModelFiles,
    /** The extension's own folder (media/models.json is in it). */
    extensionUri: vscode.Uri
};
