import * as vscode from "vscode";
import {readSettings, resolveModelPath, settingKeys, settingsSection, type ExtensionSettings} from "./extensionSettings.js";

/** Reads this extension's settings from the editor and follows their changes. */
export class Settings {
    public static read(): {settings: ExtensionSettings, problems: string[]} {
        const configuration = vscode.workspace.getConfiguration(settingsSection);
        return readSettings((key) => configuration.get(key));
    }

    public static onDidChange(listener: () => void): vscode.Disposable {
        return vscode.workspace.onDidChangeConfiguration((event) => {
            if (event.affectsConfiguration(settingsSection))
                listener();
        });
    }

    /** Relative paths are relative to the first workspace folder. */
    public static resolveModelPath(raw: string): string {
        return resolveModelPath(raw, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? null);
    }

    /** Writes the model path to the user settings, so it holds in every window. */
    public static async setModelPath(modelPath: string): Promise<void> {
        await Settings.writeUserSetting("modelPath", modelPath);
    }

    /** Writes the upstream model (Load Model… with the upstream engine) to the user settings (the remote machine's in a remote window). */
    public static async setUpstreamModel(model: string): Promise<void> {
        await Settings.writeUserSetting("upstreamModel", model);
    }

    /** Writes `localResponses.models.directory` (Serve a Models Folder…) to the user settings. */
    public static async setModelsDirectory(folder: string): Promise<void> {
        await Settings.writeUserSetting("modelsDir", folder);
    }

    /** Writes `localResponses.engine` to the user settings (the remote machine's in a remote window). */
    public static async setEngine(engine: ExtensionSettings["engine"]): Promise<void> {
        await Settings.writeUserSetting("engine", engine);
    }

    public static downloadDirectory(settings: ExtensionSettings, globalStorage: vscode.Uri): string {
        return settings.downloadDirectory != null ? Settings.resolveModelPath(settings.downloadDirectory)
            : vscode.Uri.joinPath(globalStorage, "models").fsPath;
    }

    /** Writes one setting to the user settings (the remote machine's in a remote window). */
    private static async writeUserSetting(field: keyof ExtensionSettings, value: unknown): Promise<void> {
        await vscode.workspace.getConfiguration(settingsSection).update(settingKeys[field], value, vscode.ConfigurationTarget.Global);
    }
}
