import * as vscode from "vscode";
import {ContextKeys} from "../manifest/ContextKeys.js";
import {FirstRunProgress, walkthroughId, type FirstRunEvent} from "./FirstRunProgress.js";
import {listModelFiles} from "../models/listModelFiles.js";
import type {HostController} from "../controller/HostController.js";
import type {ModelFiles} from "../models/ModelFiles.js";

/** What the walkthrough watches: the controller's model, and the model files that are known. */
export type FirstRunContext = {
    readonly controller: HostController,
    readonly models: Pick<ModelFiles, "directory" | "recent" | "onChange">
};

/**
 * The first-run walkthrough's progress: sets its steps' context keys when the real thing happened (a model file
 * known, a model loaded, a client given the endpoint and key, a response seen in the inspector).
 */
export class FirstRun implements vscode.Disposable {
    private readonly progress = new FirstRunProgress();
    private readonly contextKeys = new ContextKeys();
    private readonly unsubscribes: (() => void)[];

    public constructor(private readonly context: FirstRunContext) {
        this.unsubscribes = [
            context.controller.onChange(() => {
                const {model, library} = context.controller.state;
                this.progress.modelState(model != null);
                this.progress.modelsServed(library?.length ?? (model != null ? 1 : 0));
                this.apply();
            }),
            context.models.onChange(() => void this.countModelFiles())
        ];
        void this.countModelFiles();
    }

    /**
     * Opens the walkthrough. VS Code creates its walkthrough service lazily (with `workbench.startupEditor: none`, on
     * the first walkthrough shown), and a step whose context key is already true then is recorded as seen but never
     * ticked (code-server 4.139.1). So the keys go down first and come back once the walkthrough is registered: the
     * service then sees them rise, as it would have, had it existed when they did.
     */
    public async open(): Promise<void> {
        await this.contextKeys.reset(Object.fromEntries(Object.keys(this.progress.keys()).map((key) => [key, false])));
        await vscode.commands.executeCommand("workbench.action.openWalkthrough", walkthroughId, false);
        await new Promise((resolve) => setTimeout(resolve, 500));
        this.apply();
    }

    /** Something a person did that a step waits for. */
    public record(event: FirstRunEvent): void {
        this.progress.record(event);
        this.apply();
    }

    private async countModelFiles(): Promise<void> {
        const directory = this.context.models.directory();
        const downloaded = await listModelFiles(directory).catch(() => []);
        this.progress.modelFiles(
            this.context.models.recent().length + downloaded.length + (this.context.controller.currentSettings.modelPath != null ? 1 : 0)
        );
        this.apply();
    }

    private apply(): void {
        this.contextKeys.set(this.progress.keys());
    }

    public dispose(): void {
        for (const off of this.unsubscribes)
            off();
    }
}
