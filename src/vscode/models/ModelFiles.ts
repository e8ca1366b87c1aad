import {Emitter} from "../../protocol/Emitter.js";
import {DownloadHashes} from "./DownloadHashes.js";
import type {KeptState} from "./keptState.js";
import {rememberRecent} from "./recentModels.js";

const recentModelsKey = "localResponses.recentModels";

export type {KeptState} from "./keptState.js";

/**
 * The model files the editor knows about: Load Model…'s recent files (kept in the extension's global state, so they
 * outlive a window) and the folder Download Model… saves into, with one change event for both that the Models view
 * and the walkthrough follow.
 */
export class ModelFiles {
    private readonly changes = new Emitter<void>();
    /** The hashes each catalog entry's first download recorded (see `DownloadHashes`). */
    public readonly hashes: DownloadHashes;

    /** `folder` is read on each call: it follows the `localResponses.model.downloadDirectory` setting. */
    public constructor(private readonly state: KeptState, private readonly folder: () => string) {
        this.hashes = new DownloadHashes(state);
    }

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
