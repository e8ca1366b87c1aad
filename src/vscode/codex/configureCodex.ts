import os from "node:os";
import path from "node:path";
import * as vscode from "vscode";
import {codexKeyVariable, codexProviderBlock, codexShellHint, codexTopLevelKeys, type CodexProvider} from "./codexConfig.js";
import {writeCodexConfig} from "./writeCodexConfig.js";
import {chooseMainModel} from "../clientConfig/chooseModels.js";
import {pickModelInEditor, servedModels} from "../clientConfig/editorModelPick.js";
import {offersChoice} from "../clientConfig/libraryModelItems.js";
import type {HostController} from "../controller/HostController.js";
import type {FirstRunRecorder} from "../firstRun/FirstRunProgress.js";
import type {LogChannel} from "../log/LogChannel.js";
import {commandIds} from "../manifest/commandIds.js";

/**
 * Configure Codex…: writes (or shows) a `config.toml` provider block for this endpoint. The key goes in an
 * environment variable that Codex reads, never into the file. A file that cannot be merged safely (a link, not TOML)
 * is left as it is, with why; a written one keeps its previous version beside it. With a library of several models
 * the person picks the profile's default `model`; Codex's `/model` picker lists the others (the server answers its
 * `GET /v1/models?client_version=` with the library).
 */
export async function configureCodex(context: {controller: HostController, log: LogChannel, firstRun: FirstRunRecorder}): Promise<void> {
    const {endpoint} = context.controller.state;
    if (endpoint == null) {
        const choice = await vscode.window.showWarningMessage("Local Responses: start the server first, so Codex has an endpoint to "
            + "point at.", "Start Server");
        if (choice === "Start Server")
            await vscode.commands.executeCommand(commandIds.startServer);
        return;
    }
    const served = servedModels(context.controller);
    const model = await chooseMainModel(served, pickModelInEditor, "Configure Codex: default model");
    if (model == null)
        return;
    const provider: CodexProvider = {endpoint, model: model.id, contextWindow: model.contextWindow};
    const configFile = path.join(process.env.CODEX_HOME ?? path.join(os.homedir(), ".codex"), "config.toml");
    const choice = await vscode.window.showQuickPick([
        {label: "Write to config.toml", description: configFile, action: "write" as const},
        {label: "Show the provider block", description: "copy it yourself", action: "show" as const}
    ], {title: "Configure Codex"});
    if (choice == null)
        return;

    if (choice.action === "show") {
        await showBlock(configFile, provider);
        context.firstRun.record("codexConfigured");
        return;
    }

    const write = await writeCodexConfig(configFile, provider);
    if (write.outcome === "refused") {
        context.log.warn(`codex: ${write.reason}`);
        const next = await vscode.window.showWarningMessage(`Local Responses: ${write.reason}`, "Show the provider block");
        if (next === "Show the provider block")
            await showBlock(configFile, provider);
        return;
    }
    const kept = write.outcome === "written" && write.backup != null ? ` (the previous file is kept as ${write.backup})` : "";
    context.log.info(write.outcome === "written"
        ? `codex: wrote provider 'local-responses' (${endpoint}) to ${configFile}${kept}`
        : `codex: ${configFile} already has provider 'local-responses' (${endpoint})`);
    context.firstRun.record("codexConfigured");
    const picker = offersChoice(served.library)
        ? ` Its default model is ${model.id}; Codex's /model lists the library's other models.` : "";
    const next = await vscode.window.showInformationMessage(
        `Codex now uses Local Responses (${configFile}${kept}).${picker} Set ${codexKeyVariable} in the shell that runs codex.`,
        "Copy API Key", "Open config.toml");
    if (next === "Copy API Key")
        await vscode.commands.executeCommand(commandIds.copyApiKey);
    else if (next === "Open config.toml")
        await vscode.window.showTextDocument(vscode.Uri.file(configFile));
}

async function showBlock(configFile: string, provider: CodexProvider): Promise<void> {
    const document = await vscode.workspace.openTextDocument({
        language: "toml",
        content: `# ${configFile}\n${codexTopLevelKeys(provider).join("\n")}\n\n${codexProviderBlock(provider)}\n# Then, in the shell `
            + `that runs codex:\n# ${codexShellHint()}\n`
    });
    await vscode.window.showTextDocument(document);
}
