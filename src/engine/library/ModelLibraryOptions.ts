import type {GenerationActivity} from "../GenerationActivity.js";
import type {HostedEngine} from "../HostedEngine.js";
import type {LibraryModelSpec} from "./LibraryEntry.js";

/** How a `ModelLibrary` is made: its models, how each model's engine is made and estimated, and its limits. */
export type ModelLibraryOptions = {
    models: readonly LibraryModelSpec[],
    /** The id a request without a model (or `load("")`) gets; defaults to the first model. */
    defaultModel?: string | null,
    /** A model's engine (created once per model, loaded on demand); its generations count in `activity`. */
    createEngine(spec: LibraryModelSpec, activity: GenerationActivity): HostedEngine,
    /** node-llama-cpp's estimate of a model's memory once loaded with its settings (weights + contexts), and that context. */
    estimate(spec: LibraryModelSpec): Promise<{bytes: number, contextSize: number}>,
    maxLoaded: number,
    memoryBudgetBytes: number,
    /** Unload a model this long after its last request ended; null: never (unless a request's keep_alive says so). */
    idleUnloadSeconds: number | null,
    log?: (line: string) => void,
    /** The clock, for tests. Defaults to `Date.now`. */
    now?: () => number,
    /** Where its models' generations are counted (what else watches them: the spare model process). Defaults to its own. */
    activity?: GenerationActivity,
    /** What its models' engines share, released after them when the library is disposed (a spare model process). */
    shared?: {dispose(): Promise<void>}
};
