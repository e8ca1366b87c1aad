import path from "node:path";
import * as vscode from "vscode";
import type {ModelCommandPorts} from "./modelCommandPorts.js";
import {Settings} from "../settings/Settings.js";
import {loadUpstreamModelCommand} from "./loadUpstreamModel.js";

/**
 * Load Model…: with the upstream engine, a model the upstreams serve; else recent models first, or a file picker for
 * `.gguf`; the choice becomes the model setting.
 */
export async function loadModelCommand(
    context: Pick<ModelCommandPorts, "controller" | "log" | "models">
): Promise<void> {
    if (context.controller.state.engineKind === "upstream")
        return loadUpstreamModelCommand(context);
    const recent = context.models.recent();
    let modelPath: string | undefined;
    if (recent.length > 0) {
        const browse: vscode.QuickPickItem & {path?: string} = {label: "$(folder-opened) Browse…", description: "pick a .gguf file"};
        const picked = await vscode.window.showQuickPick<vscode.QuickPickItem & {path?: string}>([
            browse,
            ...recent.map((entry) => ({label: path.basename(entry), description: path.dirname(entry), path: entry}))
        ], {title: "Load Model", placeHolder: "A recent model, or browse for a .gguf file"});
        if (picked == null)
            return;
        modelPath = picked.path;
    }
    if (modelPath == null) {
        const files = await vscode.window.showOpenDialog({
            title: "Load Model",
            openLabel: "Load Model",
            canSelectMany: false,
            filters: {"GGUF models": ["gguf"]}
        });
        if (files == null || files.length === 0)
            return;
        modelPath = files[0]!.fsPath;
    }
    await loadAndRemember(context, modelPath);
}

/** Loads a model with a progress notification, then remembers it and writes it to the model setting. */
export async function loadAndRemember(context: Pick<ModelCommandPorts, "controller" | "models">, modelPath: string): Promise<void> {
    const info = await vscode.window.withProgress({
        location: vscode.ProgressLocation.Notification,
        title: `Loading ${path.basename(modelPath)}`
    }, () => context.controller.loadModel(modelPath));
    await context.models.remember(modelPath);
    // The controller knows this path already: the settings change below is not applied a second time.
    context.controller.adoptModelPath(modelPath);
    await Settings.setModelPath(modelPath);

    let where = context.controller.state.endpoint;
    if (where == null && context.controller.currentSettings.autoStart)
        where = await context.controller.startServer();
    void vscode.window.showInformationMessage(
        `Local Responses: ${info.id} loaded${where != null ? `, serving on ${where}` : " (server stopped)"}.`
    );
}
