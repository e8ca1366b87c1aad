import * as vscode from "vscode";
import {Settings} from "../settings/Settings.js";
import type {ModelCommandPorts} from "./modelCommandPorts.js";

/**
 * Serve a Models Folder…: picks a folder of GGUF files (the downloads folder first, where Download Model… puts them) and
 * writes it as `localResponses.models.directory`. The core is rebuilt on that setting, and every model of the folder is
 * then listed and loaded when a request names it (a model library, docs/models.md).
 */
export async function chooseModelsFolder(context: Pick<ModelCommandPorts, "controller" | "models">): Promise<void> {
    const current = context.controller.currentSettings.modelsDir;
    const picked = await vscode.window.showOpenDialog({
        title: "Serve every GGUF model of a folder", openLabel: "Serve This Folder", canSelectFolders: true, canSelectFiles: false,
        canSelectMany: false, defaultUri: vscode.Uri.file(current != null ? Settings.resolveModelPath(current) : context.models.directory())
    });
    const folder = picked?.[0]?.fsPath;
    if (folder == null)
        return;
    await Settings.setModelsDirectory(folder);
    void vscode.window.showInformationMessage(`Local Responses: serving the models of ${folder}. Each loads when a request `
        + "names it; the Models view lists them with a load and unload action.");
}
