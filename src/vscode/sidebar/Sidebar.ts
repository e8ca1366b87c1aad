import fs from "node:fs/promises";
import path from "node:path";
import * as vscode from "vscode";
import {loadAndRemember} from "../models/loadModel.js";
import {connectUpstreamModel} from "../models/loadUpstreamModel.js";
import {commandIds} from "../manifest/commandIds.js";
import {formatBytes} from "../models/formatBytes.js";
import {deletableModel} from "../models/deletableModel.js";
import {jobRows} from "./jobRows.js";
import {listModelFiles} from "../models/listModelFiles.js";
import {libraryModelRows} from "./libraryModelRows.js";
import {modelRows} from "./modelRows.js";
import {upstreamModelRows} from "./upstreamModelRows.js";
import {responseRows} from "./responseRows.js";
import {serverRows} from "./serverRows.js";
import type {SidebarRow} from "./SidebarRow.js";
import {contextKeys, sidebarViewIds} from "../manifest/viewIds.js";
import {defaultThreads} from "../../engine/engineDefaults.js";
import type {VscodeChatState} from "../chatProvider/vscodeChatState.js";
import type {HostController} from "../controller/HostController.js";
import type {CoreSources} from "../inspector/inspectorSources.js";
import type {InspectorTarget} from "../inspector/InspectorPanel.js";
import type {LogChannel} from "../log/LogChannel.js";
import type {ModelFiles} from "../models/ModelFiles.js";
import type {ServerStats} from "../status/ServerStats.js";
import {ContextKeys} from "../manifest/ContextKeys.js";
import {SidebarView} from "./SidebarView.js";

/** What the four views show and their row actions use. */
/** What the sidebar reads and does: the face's parts it shows, and the inspector it opens. */
export type SidebarContext = {
    log: LogChannel,
    controller: HostController,
    stats: ServerStats,
    session: Pick<CoreSources, "hasHost" | "responses" | "jobs" | "onHostChanged">,
    models: ModelFiles,
    openInspector(target?: string | InspectorTarget): void,
    /** Whether the served model is offered to the editor's own chat (`vscode.lm`), and when that changes. */
    vscodeChat: {readonly state: VscodeChatState, onChange(listener: () => void): () => void}
};

/**
 * The activity-bar container's four native tree views (Server, Models, Responses, Jobs) and the actions on
 * their rows. Each view refreshes on the events of what it shows (controller state, store changes, job events,
 * model list changes), never on a timer.
 */
export class Sidebar implements vscode.Disposable {
    private readonly server: SidebarView;
    private readonly models: SidebarView;
    private readonly responses: SidebarView;
    private readonly jobs: SidebarView;
    private readonly disposables: vscode.Disposable[] = [];
    private readonly unsubscribes: (() => void)[] = [];
    private offSources: (() => void)[] = [];

    public constructor(private readonly context: SidebarContext) {
        this.server = new SidebarView(sidebarViewIds.server, () => this.serverRows(), {intervalMs: 500});
        this.models = new SidebarView(sidebarViewIds.models, () => this.modelRows());
        this.responses = new SidebarView(sidebarViewIds.responses,
            () => context.session.hasHost ? responseRows(context.session.responses.list(), commandIds.sidebarOpenResponse, clock) : []);
        this.jobs = new SidebarView(sidebarViewIds.jobs,
            () => jobRows(context.session.hasHost ? context.session.jobs?.list() ?? null : [], commandIds.sidebarOpenJob));
        this.disposables.push(this.server, this.models, this.responses, this.jobs);

        this.unsubscribes.push(
            context.controller.onChange(() => {
                this.server.refresh();
                this.models.refresh();
                this.setContextKeys();
            }),
            // Queue depth and totals move with generation activity and per-generation summaries.
            context.stats.onChange(() => this.server.refresh()),
            context.models.onChange(() => this.models.refresh()),
            context.vscodeChat.onChange(() => this.server.refresh()),
            context.session.onHostChanged(() => this.followSources())
        );
        this.followSources();
        this.setContextKeys();

        const run = (id: string, view: SidebarView, action: (row: SidebarRow) => unknown) => vscode.commands.registerCommand(id,
            async (argument: unknown) => {
                const row = view.targetOf(argument);
                if (row?.target == null)
                    return;
                try {
                    await action(row);
                } catch (error) {
                    context.log.error(`${id}: ${(error as Error).message}`);
                    void vscode.window.showErrorMessage(`Local Responses: ${(error as Error).message}`);
                }
            });
        this.disposables.push(
            run(commandIds.sidebarLoadModel, this.models, (row) => row.contextValue?.startsWith("upstreamModel")
                ? connectUpstreamModel(context, row.target!)
                : row.contextValue?.startsWith("libraryModel") ? this.libraryModel(row.target!, "load")
                    : loadAndRemember(context, row.target!)),
            run(commandIds.sidebarUnloadModel, this.models, (row) => this.libraryModel(row.target!, "unload")),
            run(commandIds.sidebarRevealModel, this.models,
                (row) => vscode.commands.executeCommand("revealFileInOS", vscode.Uri.file(row.target!))),
            run(commandIds.sidebarDeleteModel, this.models, (row) => this.deleteModel(row)),
            run(commandIds.sidebarForgetModel, this.models, (row) => context.models.forget(row.target!)),
            run(commandIds.sidebarOpenResponse, this.responses, (row) => context.openInspector({response: row.target!})),
            run(commandIds.sidebarDeleteResponse, this.responses, (row) => this.deleteResponse(row)),
            run(commandIds.sidebarOpenJob, this.jobs, (row) => context.openInspector({job: row.target!})),
            run(commandIds.sidebarCancelJob, this.jobs, (row) => this.cancelJob(row))
        );
    }

    private readonly contextKeys = new ContextKeys();

    /** Sets the context key that the Server view's title menu (Start or Stop Server) reads. */
    private setContextKeys(): void {
        this.contextKeys.set({[contextKeys.serverState]: this.context.controller.state.server});
    }

    /** Re-subscribes to the store and the jobs of the current host (a rebuilt host has new ones). */
    private followSources(): void {
        for (const off of this.offSources)
            off();
        this.offSources = [];
        if (this.context.session.hasHost) {
            this.offSources.push(this.context.session.responses.onChange(() => this.responses.refresh()));
            const jobs = this.context.session.jobs;
            if (jobs != null)
                this.offSources.push(jobs.onChange(() => this.jobs.refresh()));
        }
        this.responses.refresh();
        this.jobs.refresh();
        this.server.refresh();
    }

    private serverRows(): SidebarRow[] {
        const controller = this.context.controller;
        const state = controller.state;
        const threads = controller.currentSettings.threads;
        return serverRows({
            state,
            engine: state.engine === "ready" && this.context.session.hasHost ? controller.host.engine.stats() : null,
            threads: {count: threads === 0 ? defaultThreads() : threads, isDefault: threads === 0},
            totals: this.context.stats.totals,
            vscodeChat: this.context.vscodeChat.state
        });
    }

    /** Loads or unloads a model of the library (the view follows its state). */
    private async libraryModel(id: string, action: "load" | "unload"): Promise<void> {
        const library = this.context.controller.host.library;
        if (library != null)
            await (action === "load" ? library.loadModel(id) : library.unloadModel(id));
    }

    private async modelRows(): Promise<SidebarRow[]> {
        const state = this.context.controller.state;
        if (state.library != null)
            return libraryModelRows(state.library);
        // Model files mean nothing to the upstream engine: the view lists what the upstreams serve instead.
        if (state.engineKind === "upstream")
            return upstreamModelRows({
                listings: this.context.session.hasHost ? await this.context.controller.listUpstreamModels().catch(() => []) : [],
                connected: state.upstreamModel,
                configured: this.context.controller.currentSettings.upstreamModel
            });
        const directory = this.context.models.directory();
        return modelRows({
            recent: this.context.models.recent(),
            downloaded: await listModelFiles(directory).catch(() => []),
            loadedPath: state.model?.path ?? null,
            loadedBackend: state.model?.backend ?? null,
            loadingPath: state.engine === "loading" ? state.pendingModelPath : null
        });
    }

    private async deleteModel(row: SidebarRow): Promise<void> {
        const modelPath = row.target!;
        if (!row.contextValue?.startsWith("model.downloaded")) {
            void vscode.window.showInformationMessage(
                `Local Responses: ${path.basename(modelPath)} was not downloaded here, so it is only removed from `
                    + `the list (the file stays).`
            );
            await this.context.models.forget(modelPath);
            return;
        }
        if (this.context.controller.state.model?.path === modelPath) {
            void vscode.window.showWarningMessage(
                `Local Responses: ${path.basename(modelPath)} is loaded. Unload it first (Unload Model).`
            );
            return;
        }
        // Refused (with why, shown by `run`) before asking: the command's argument may name any path.
        await deletableModel(modelPath, this.context.models.directory());
        const size = await fs.stat(modelPath).then((stat) => ` (${formatBytes(stat.size)})`, () => "");
        const choice = await vscode.window.showWarningMessage(`Delete ${path.basename(modelPath)}${size} from disk?`,
            {modal: true, detail: modelPath}, "Delete");
        if (choice !== "Delete")
            return;
        // Checked again: the file may have been swapped for a link while the dialog was open.
        await fs.unlink(await deletableModel(modelPath, this.context.models.directory()));
        this.context.log.info(`models: deleted ${modelPath}`);
        await this.context.models.forget(modelPath);
    }

    private async deleteResponse(row: SidebarRow): Promise<void> {
        const id = row.target!;
        const choice = await vscode.window.showWarningMessage(`Delete stored response ${id}?`,
            {modal: true, detail: "Clients can no longer retrieve it or continue from it."}, "Delete");
        if (choice !== "Delete")
            return;
        if (this.context.session.responses.delete(id))
            this.context.log.info(`store: deleted ${id} from the sidebar`);
        else
            void vscode.window.showInformationMessage(`Local Responses: ${id} is no longer stored.`);
    }

    private async cancelJob(row: SidebarRow): Promise<void> {
        const jobs = this.context.session.jobs;
        if (jobs == null || row.contextValue !== "job.active")
            return;
        const cancelled = await jobs.cancel(row.target!);
        void vscode.window.showInformationMessage(
            cancelled ? `Local Responses: cancelled ${row.target}.` : `Local Responses: ${row.target} had already finished.`
        );
    }

    public dispose(): void {
        for (const off of [...this.unsubscribes, ...this.offSources])
            off();
        for (const disposable of this.disposables)
            disposable.dispose();
    }
}

function clock(seconds: number): string {
    return new Date(seconds * 1000).toLocaleTimeString();
}
