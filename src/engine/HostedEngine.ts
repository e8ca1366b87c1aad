import type {GenerationActivity} from "./GenerationActivity.js";
import type {ChatEngine, EngineState, GenerationSummary, LoadProgress, ModelInfo} from "./types.js";

/**
 * What the host and its faces need from an engine beyond `ChatEngine`: loading, lifecycle and live activity.
 * `LlamaEngine` (a local GGUF file) and `UpstreamEngine` (Chat Completions servers) both provide it, and so do the
 * engines made of others: `ModelLibrary` (several local models) and `RoutedEngine` (a library beside upstreams).
 */
export interface HostedEngine extends ChatEngine {
    readonly activity: GenerationActivity;
    /** With `kind` `upstream`: the name sent to the upstreams as `model` (the served `model.id` may be an alias). */
    readonly upstreamModelName?: string;
    /**
     * With `kind` `upstream`, while connected: every model name the upstreams serve; a request whose `model` is one of
     * them is sent under that name (a routed engine's upstream models, docs/upstream.md).
     */
    readonly servedModelNames?: readonly string[];
    /** With `kind` `upstream`: the context size of one of `servedModelNames` (each model its own; null: not connected). */
    servedModelContext?(name: string): number | null;
    /** With `state` `failed` after it had loaded: why it stopped (a model's own process that ended); null otherwise. */
    readonly failure?: string | null;
    onStateChange(listener: (state: EngineState) => void): () => void;
    onGeneration(listener: (summary: GenerationSummary) => void): () => void;
    /**
     * The local engine loads a GGUF file; the upstream engine connects and takes this as the upstream model's name (""
     * = the upstream's first).
     */
    load(source: string, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo>;
    unload(): Promise<void>;
    dispose(): Promise<void>;
    /**
     * Deletes the prompt states kept on disk for one cache partition (its key deleted what it stored), or all of them;
     * resolves to how many went. An engine that keeps none resolves to 0.
     */
    forgetPromptStates(partition?: string): Promise<number>;
}
