import type {EngineState, LibraryModel, ModelInfo} from "../../engine/types.js";
import type {HostEvents} from "../../host/LocalResponsesHost.js";
import type {RequestLogEntry} from "../../server/middleware/requestLog.js";
import type {ExtensionSettings} from "../settings/extensionSettings.js";

export type HostControllerDeps = {
    /** The API key from SecretStorage. */
    apiKey: () => Promise<string>,
    /** The upstream engine's key from SecretStorage (none: the upstreams take requests without one). */
    upstreamApiKey?: () => Promise<string | null>,
    /** A model path as written in settings → an absolute path. */
    resolveModelPath: (raw: string) => string,
    log: (line: string) => void,
    onRequest: (entry: RequestLogEntry) => void,
    onPromptProgress?: HostEvents["onPromptProgress"],
    /** The durable store's folder (the extension's global storage); absent: everything lives in memory. */
    dataDir?: string
};

export type ControllerState = {
    server: "stopped" | "starting" | "listening",
    engine: EngineState,
    model: ModelInfo | null,
    /** The model being loaded, or the last one that failed. */
    pendingModelPath: string | null,
    loadProgress: number | null,
    endpoint: string | null,
    lastError: string | null,
    /** What answers: a model on this machine, or the upstream Chat Completions servers (`localResponses.engine`). */
    engineKind: ExtensionSettings["engine"],
    /** The model name sent to the upstreams while connected (`model.id` is the alias clients see); null otherwise. */
    upstreamModel: string | null,
    /** With a model library (`localResponses.models.directory`): every model and its state; null with one model. */
    library: LibraryModel[] | null
};

/**
 * Whether the server has something to answer with: a loaded (or connected) model, or a library with a model that can
 * load on demand (a library's requests load their model: nothing needs loading before the server starts).
 */
export function canServe(state: Pick<ControllerState, "model" | "library">): boolean {
    return state.model != null || (state.library?.some((model) => model.status !== "failed") ?? false);
}
