import os from "node:os";
import * as vscode from "vscode";
import {chooseClaudeModels} from "./chooseClaudeModels.js";
import {claudeBaseUrl, claudeSettingsFile, claudeSettingsPreview, type ClaudeProvider} from "./claudeSettings.js";
import {writeClaudeSettings} from "./writeClaudeSettings.js";
import {clientKeyVariable} from "../clientConfig/clientKey.js";
import {pickModelInEditor, servedModels} from "../clientConfig/editorModelPick.js";
import type {HostController} from "../controller/HostController.js";
import type {FirstRunRecorder} from "../firstRun/FirstRunProgress.js";
import type {LogChannel} from "../log/LogChannel.js";
import {commandIds} from "../manifest/commandIds.js";

const openSettings = "Open settings.json";

/**
 * Configure Claude Code…: writes (or shows) the `env` block and `apiKeyHelper` that point Claude Code at this
 * server's Messages endpoint, merged into its user settings.json. The key stays in an environment variable the
 * helper prints, never in the file; a file that is not JSON (or is a link) is left as it is, a key the person set is
 * removed only if they say so, and a written file keeps its previous version beside it. With a library of several
 * models the person picks the main model, then the small, fast one for Claude Code's background requests.
 */
export async function configureClaudeCode(
    context: {controller: HostController, log: LogChannel, firstRun: FirstRunRecorder}
): Promise<void> {
    const {endpoint} = context.controller.state;
    if (endpoint == null) {
        const choice = await vscode.window.showWarningMessage(
            "Local Responses: start the server first, so Claude Code has an endpoint to point at.", "Start Server");
        if (choice === "Start Server")
            await vscode.commands.executeCommand(commandIds.startServer);
        return;
    }
    const models = await chooseClaudeModels(servedModels(context.controller), pickModelInEditor);
    if (models == null)
        return;
    const provider: ClaudeProvider = {endpoint, ...models};
    const settingsFile = claudeSettingsFile(process.env, os.homedir());
    const choice = await vscode.window.showQuickPick([
        {label: "Write to settings.json", description: settingsFile, action: "write" as const},
        {label: "Show the settings block", description: "copy it yourself", action: "show" as const}
    ], {title: "Configure Claude Code"});
    if (choice == null)
        return;
    if (choice.action === "show") {
        await showBlock(settingsFile, provider);
        context.firstRun.record("claudeConfigured");
        return;
    }

    const write = await writeClaudeSettings(settingsFile, provider, askToRemoveKeys);
    if (write.outcome === "refused") {
        context.log.warn(`claude: ${write.reason}`);
        const next = await vscode.window.showWarningMessage(
            `Local Responses: ${write.reason} Fix it and run Configure Claude Code… again, or merge the block yourself.`,
            openSettings, "Show the settings block");
        if (next === openSettings)
            await vscode.window.showTextDocument(vscode.Uri.file(settingsFile));
        else if (next === "Show the settings block")
            await showBlock(settingsFile, provider);
        return;
    }
    const backupNote = write.outcome === "written" && write.backup != null ? ` The previous file is kept as ${write.backup}.` : "";
    const keysNote = write.removed.length > 0
        ? ` Removed ${write.removed.join(" and ")} from its env: Claude Code would have sent them instead.`
        : write.kept.length > 0
            ? ` Its env still sets ${write.kept.join(" and ")}: Claude Code sends that instead of the helper's key, `
                + "and gets 401."
            : "";
    context.log.info(`claude: ${write.outcome === "written" ? "wrote" : "already had"} ANTHROPIC_BASE_URL ${claudeBaseUrl(endpoint)} `
        + `and apiKeyHelper in ${settingsFile}.${backupNote}${keysNote}`);
    context.firstRun.record("claudeConfigured");
    const modelsNote = provider.library == null ? ""
        : ` Its main model is ${provider.model}, its small, fast model ${provider.library.smallModel}.`;
    const next = await vscode.window.showInformationMessage(
        `Claude Code now uses Local Responses (${settingsFile}).${modelsNote} Set ${clientKeyVariable} in the shell that runs claude.`
            + `${keysNote}${backupNote}`,
        "Copy API Key", openSettings);
    if (next === "Copy API Key")
        await vscode.commands.executeCommand(commandIds.copyApiKey);
    else if (next === openSettings)
        await vscode.window.showTextDocument(vscode.Uri.file(settingsFile));
}

async function showBlock(settingsFile: string, provider: ClaudeProvider): Promise<void> {
    const document = await vscode.workspace.openTextDocument({language: "jsonc", content: claudeSettingsPreview(settingsFile, provider)});
    await vscode.window.showTextDocument(document);
}

/** The modal that asks before a key the person set is taken out of their settings.json; closing it keeps the key. */
async function askToRemoveKeys(keys: string[]): Promise<boolean> {
    const remove = `Remove ${keys.join(" and ")}`;
    const answer = await vscode.window.showWarningMessage(
        `Claude Code's settings.json sets ${keys.join(" and ")} in its env. Claude Code sends that key instead of the one `
        + "apiKeyHelper prints, so requests to Local Responses would fail with 401. Remove it from settings.json? "
        + "(The previous file is kept as a backup.)",
        {modal: true}, remove, "Keep");
    return answer === remove;
}
