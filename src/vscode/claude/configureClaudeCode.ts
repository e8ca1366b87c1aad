import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import * as vscode from "vscode";
import {claudeBaseUrl, claudeSettingsFile, claudeSettingsPreview, mergeClaudeSettings, type ClaudeProvider} from "./claudeSettings.js";
import {clientKeyVariable} from "../clientKey.js";
import type {CommandContext} from "../CommandContext.js";
import {commandIds} from "../manifest/commandIds.js";
import {readTextOrEmpty} from "../readTextOrEmpty.js";

const openSettings = "Open settings.json";

/**
 * Configure Claude Code…: writes (or shows) the `env` block and `apiKeyHelper` that point Claude Code at this
 * server's Messages endpoint, merged into its user settings.json. The key stays in an environment variable the
 * helper prints, never in the file; a file that is not JSON is left as it is.
 */
export async function configureClaudeCode(context: Pick<CommandContext, "controller" | "log" | "firstRun">): Promise<void> {
    const {endpoint, model} = context.controller.state;
    if (endpoint == null) {
        const choice = await vscode.window.showWarningMessage(
            "Local Responses: start the server first, so Claude Code has an endpoint to point at.", "Start Server");
        if (choice === "Start Server")
            await vscode.commands.executeCommand(commandIds.startServer);
        return;
    }
    const provider: ClaudeProvider = {endpoint, model: model?.id ?? "local"};
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

    const existing = await readTextOrEmpty(settingsFile);
    const merge = mergeClaudeSettings(existing, provider);
    if (!merge.ok) {
        context.log.warn(`claude: left ${settingsFile} as it is: ${merge.reason}`);
        const next = await vscode.window.showWarningMessage(
            `Local Responses: ${settingsFile} was not changed: ${merge.reason}. `
            + "Fix it and run Configure Claude Code… again, or merge the block yourself.",
            openSettings, "Show the settings block");
        if (next === openSettings)
            await vscode.window.showTextDocument(vscode.Uri.file(settingsFile));
        else if (next === "Show the settings block")
            await showBlock(settingsFile, provider);
        return;
    }
    await fs.mkdir(path.dirname(settingsFile), {recursive: true});
    await fs.writeFile(settingsFile, merge.text);
    const removedNote = merge.removed.length > 0
        ? ` Removed ${merge.removed.join(" and ")} from its env: Claude Code would have sent them instead.`
        : "";
    context.log.info(`claude: wrote ANTHROPIC_BASE_URL ${claudeBaseUrl(endpoint)} and apiKeyHelper to ${settingsFile}.${removedNote}`);
    context.firstRun.record("claudeConfigured");
    const next = await vscode.window.showInformationMessage(
        `Claude Code now uses Local Responses (${settingsFile}). Set ${clientKeyVariable} in the shell that runs claude.${removedNote}`,
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
