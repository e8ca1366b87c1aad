import * as vscode from "vscode";
import {configureClaudeCode} from "../claude/configureClaudeCode.js";
import {configureCodex} from "../codex/configureCodex.js";
import {chooseModelsFolder} from "../models/chooseModelsFolder.js";
import {downloadModelCommand} from "../models/downloadModelCommand.js";
import {loadModelCommand} from "../models/loadModel.js";
import {listResponsesCommand} from "./listResponses.js";
import {enableGpuCommand, type EnableGpuPorts} from "./enableGpuCommand.js";
import {commandIds} from "../manifest/commandIds.js";
import {canServe} from "../controller/controllerState.js";
import type {ApiKeySecret} from "../controller/ApiKeySecret.js";
import type {UpstreamApiKeySecret} from "../controller/UpstreamApiKeySecret.js";
import type {FirstRunRecorder} from "../firstRun/FirstRunProgress.js";
import type {CoreSources} from "../inspector/inspectorSources.js";
import type {ModelCommandPorts} from "../models/modelCommandPorts.js";
import type {ListResponsesPorts} from "./listResponses.js";

/**
 * What the palette's commands use of the face: the model commands' and the response list's ports, the API keys, the
 * current core's session and the walkthrough. `LocalResponsesExtension` provides them; nothing here imports it back.
 */
export type CommandPorts = ModelCommandPorts & ListResponsesPorts & EnableGpuPorts & {
    secret: ApiKeySecret,
    upstreamSecret: UpstreamApiKeySecret,
    session: Pick<CoreSources, "hasHost" | "responses" | "jobs" | "forgetPromptStates">,
    firstRun: FirstRunRecorder & {open(): Promise<void>},
    completions: {toggle(): Promise<void>, accepted(): void}
};

/**
 * Registers every command of the palette. Each one that cannot run says why (no model, server stopped)
 * and offers the command that fixes it, instead of failing silently.
 */
export class Commands implements vscode.Disposable {
    private readonly registrations: vscode.Disposable[];

    public constructor(private readonly context: CommandPorts) {
        const run = (id: string, handler: () => unknown) => vscode.commands.registerCommand(id, async () => {
            try {
                await handler();
            } catch (error) {
                const message = (error as Error).message;
                context.log.error(`${id}: ${message}`);
                void vscode.window.showErrorMessage(`Local Responses: ${message}`);
            }
        });
        this.registrations = [
            run(commandIds.loadModel, () => loadModelCommand(context)),
            run(commandIds.downloadModel, () => downloadModelCommand(context)),
            run(commandIds.enableGpu, () => enableGpuCommand(context)),
            run(commandIds.chooseModelsFolder, () => chooseModelsFolder(context)),
            run(commandIds.unloadModel, () => this.unloadModel()),
            run(commandIds.startServer, () => this.startServer()),
            run(commandIds.stopServer, () => this.stopServer()),
            run(commandIds.restartServer, () => this.restartServer()),
            run(commandIds.copyEndpoint, () => this.copyEndpoint()),
            run(commandIds.copyApiKey, () => this.copyApiKey()),
            run(commandIds.rotateApiKey, () => this.rotateApiKey()),
            run(commandIds.setUpstreamApiKey, () => this.setUpstreamApiKey()),
            run(commandIds.configureCodex, () => configureCodex(context)),
            run(commandIds.configureClaudeCode, () => configureClaudeCode(context)),
            run(commandIds.openInspector, () => context.openInspector()),
            run(commandIds.listResponses, () => listResponsesCommand(context)),
            run(commandIds.cancelJob, () => this.cancelJob()),
            run(commandIds.clearStore, () => this.clearStore()),
            run(commandIds.clearPromptCache, () => this.clearPromptCache()),
            run(commandIds.showLogs, () => context.log.show()),
            run(commandIds.getStarted, () => context.firstRun.open()),
            run(commandIds.toggleCompletions, () => context.completions.toggle()),
            run(commandIds.completionAccepted, () => context.completions.accepted())
        ];
    }

    /** Frees the model; with the upstream engine, disconnects from the upstreams (Load Model… connects again). */
    private async unloadModel(): Promise<void> {
        const {model, engineKind} = this.context.controller.state;
        const upstream = engineKind === "upstream";
        if (model == null) {
            void vscode.window.showInformationMessage(
                upstream ? "Local Responses: not connected to the upstreams." : "Local Responses: no model is loaded."
            );
            return;
        }
        await this.context.controller.unloadModel();
        void vscode.window.showInformationMessage(upstream
            ? `Local Responses: disconnected from the upstreams (${model.id}). Requests get 503 until Load Model… connects again.`
            : `Local Responses: unloaded ${model.id}. Requests get 503 until a model is loaded.`);
    }

    private async startServer(): Promise<void> {
        const state = this.context.controller.state;
        if (state.server === "listening") {
            void vscode.window.showInformationMessage(`Local Responses: already listening on ${state.endpoint}.`);
            return;
        }
        if (!canServe(state) && !(await this.confirmWithoutModel()))
            return;
        const url = await this.context.controller.startServer();
        void vscode.window.showInformationMessage(`Local Responses: listening on ${url}.`);
    }

    private async stopServer(): Promise<void> {
        if (this.context.controller.state.server === "stopped") {
            void vscode.window.showInformationMessage("Local Responses: the server is not running.");
            return;
        }
        await this.context.controller.stopServer();
        void vscode.window.showInformationMessage("Local Responses: server stopped (in-flight requests were let finish).");
    }

    private async restartServer(): Promise<void> {
        if (!canServe(this.context.controller.state) && !(await this.confirmWithoutModel()))
            return;
        const url = await this.context.controller.restartServer();
        void vscode.window.showInformationMessage(`Local Responses: restarted on ${url}.`);
    }

    private async confirmWithoutModel(): Promise<boolean> {
        const missing = this.context.controller.state.engineKind === "upstream" ? "the upstreams are not connected" : "no model is loaded";
        const choice = await vscode.window.showWarningMessage(
            `Local Responses: ${missing}, so the server would answer every request with 503.`, "Load Model…", "Start Anyway");
        if (choice === "Load Model…") {
            await vscode.commands.executeCommand(commandIds.loadModel);
            return false;
        }
        return choice === "Start Anyway";
    }

    private async copyEndpoint(): Promise<void> {
        const endpoint = this.context.controller.state.endpoint;
        if (endpoint == null) {
            const choice = await vscode.window.showWarningMessage("Local Responses: the server is stopped, so there is no endpoint "
                + "to copy.", "Start Server");
            if (choice === "Start Server")
                await vscode.commands.executeCommand(commandIds.startServer);
            return;
        }
        await vscode.env.clipboard.writeText(endpoint);
        this.context.firstRun.record("endpointCopied");
        void vscode.window.showInformationMessage(`Local Responses: copied ${endpoint}`);
    }

    private async copyApiKey(): Promise<void> {
        await vscode.env.clipboard.writeText(await this.context.secret.get());
        this.context.firstRun.record("keyCopied");
        // The key itself is never shown or logged.
        void vscode.window.showInformationMessage("Local Responses: API key copied to the clipboard.");
    }

    private async rotateApiKey(): Promise<void> {
        const choice = await vscode.window.showWarningMessage(
            "Rotate the API key? Clients using the current key get 401 from their next request.", {modal: true}, "Rotate");
        if (choice !== "Rotate")
            return;
        const key = await this.context.secret.rotate();
        this.context.controller.setApiKey(key);
        this.context.log.info("auth: API key rotated");
        const copy = await vscode.window.showInformationMessage("Local Responses: API key rotated.", "Copy New Key");
        if (copy === "Copy New Key")
            await vscode.env.clipboard.writeText(key);
    }

    /** The upstream engine's key: asked for hidden, kept in SecretStorage, applied with a new core when that engine runs. */
    private async setUpstreamApiKey(): Promise<void> {
        const key = await vscode.window.showInputBox({
            title: "Upstream API Key",
            prompt: "The bearer key the upstream Chat Completions servers want (localResponses.upstream.urls). Empty removes it.",
            password: true,
            ignoreFocusOut: true
        });
        if (key == null)
            return;
        await this.context.upstreamSecret.set(key.trim());
        this.context.log.info(key.trim() === "" ? "auth: upstream API key removed" : "auth: upstream API key set");
        const controller = this.context.controller;
        if (controller.currentSettings.engine !== "upstream") {
            void vscode.window.showInformationMessage(
                "Local Responses: upstream API key saved; it is used when localResponses.engine is upstream."
            );
            return;
        }
        const done = await controller.rebuild();
        void vscode.window.showInformationMessage(`Local Responses: upstream API key ${key.trim() === "" ? "removed" : "saved"}: ${done}.`);
    }

    private async cancelJob(): Promise<void> {
        const jobs = this.context.session.jobs;
        if (jobs == null) {
            void vscode.window.showInformationMessage("Local Responses: this server runs no background jobs.");
            return;
        }
        const active = jobs.list().filter((job) => job.cancellable);
        if (active.length === 0) {
            void vscode.window.showInformationMessage("Local Responses: no background job is queued or running.");
            return;
        }
        const picked = await vscode.window.showQuickPick(active.map((job) => ({
            label: job.id,
            description: `${job.status} · ${job.model}`,
            detail: `${job.eventCount} events · created ${new Date(job.createdAt * 1000).toLocaleTimeString()}`
        })), {
            title: "Cancel Background Job",
            placeHolder: "Pick a queued or running job",
            // The jobs are live: a person may look them up in the inspector (a webview, which takes focus) before
            // picking. Escape still closes the pick. (In CI the pick closed under the test when the webview re-rendered.)
            ignoreFocusOut: true
        });
        if (picked == null)
            return;
        const cancelled = await jobs.cancel(picked.label);
        void vscode.window.showInformationMessage(
            cancelled ? `Local Responses: cancelled ${picked.label}.` : `Local Responses: ${picked.label} had already finished.`
        );
    }

    private async clearStore(): Promise<void> {
        const count = this.context.session.responses.list().length;
        if (count === 0) {
            void vscode.window.showInformationMessage("Local Responses: the response store is empty.");
            return;
        }
        const choice = await vscode.window.showWarningMessage(
            `Delete all ${count} stored responses? Clients can no longer retrieve them or continue from them.`, {modal: true},
            "Delete All");
        if (choice !== "Delete All")
            return;
        const deleted = this.context.session.responses.clear();
        this.context.log.info(`store: cleared ${deleted} stored responses`);
        void vscode.window.showInformationMessage(`Local Responses: deleted ${deleted} stored responses.`);
    }

    /** The prompt states saved on disk (every key's prompts, kept to survive a restart): deleted after a confirmation. */
    private async clearPromptCache(): Promise<void> {
        const choice = await vscode.window.showWarningMessage(
            "Delete every prompt saved in the prompt cache on disk? The next long prompt of each agent is evaluated cold.",
            {modal: true}, "Delete All");
        if (choice !== "Delete All")
            return;
        const deleted = await this.context.session.forgetPromptStates();
        this.context.log.info(`prompt cache: deleted ${deleted} saved prompt state${deleted === 1 ? "" : "s"}`);
        void vscode.window.showInformationMessage(`Local Responses: deleted ${deleted} saved prompt state${deleted === 1 ? "" : "s"}.`);
    }

    public dispose(): void {
        for (const registration of this.registrations)
            registration.dispose();
    }
}
