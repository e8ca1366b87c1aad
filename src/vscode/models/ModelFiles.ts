import {Emitter} from "../../protocol/Emitter.js";
import {rememberRecent} from "./recentModels.js";

const recentModelsKey = "localResponses.recentModels";

/** The part of the extension's global state (`vscode.Memento`) this reads and writes: declared here so tests need no editor. */
export type KeptState = {
    get<T>(key: string, fallback: T): T,
    update(key: string, value: unknown): PromiseLike<void>
};

/**
 * The model files the editor knows about: Load Model…'s recent files (kept in the extension's global state, so they
 * outlive a window) and the folder Download Model… saves into, with one change event for both that the Models view
 * and the walkthrough follow.
 */
export class ModelFiles {
    private readonly changes = new Emitter<void>();

    /** `folder` is read on each call: it follows the `localResponses.model.downloadDirectory` setting. */
    public constructor(private readonly state: KeptState, private readonly folder: () => string) {}

    /** Where Download Model… saves and the Models view and the walkthrough look for model files. */
    public directory(): string {
        return this.folder();
    }

    /** Load Model…'s recent files, most recent first. */
    public recent(): string[] {
        return this.state.get<string[]>(recentModelsKey, []);
    }

    public async remember(modelPath: string): Promise<void> {
        await this.state.update(recentModelsKey, rememberRecent(this.recent(), modelPath));
        this.changed();
    }

    public async forget(modelPath: string): Promise<void> {
        await this.state.update(recentModelsKey, this.recent().filter((entry) => entry !== modelPath));
        this.changed();
    }

    /** Says that the files changed (a download finished, a file was deleted). */
    public changed(): void {
        this.changes.emit();
    }

    public onChange(listener: () => void): () => void {
        return this.changes.on(listener);
    }
}
