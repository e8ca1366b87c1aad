import type {ReasoningEffort} from "../protocol/wire.js";
import type {KeyCacheType} from "./keyCacheType.js";
import type {RawEngine, SamplingOptions} from "./completionTypes.js";

/**
 * The engine's public contract, free of node-llama-cpp types so that the Responses domain,
 * the store and the server can depend on it without loading the native module.
 */

/** One turn of a chat as the engine renders it through the model's chat wrapper. */
export type ChatTurn =
    | {role: "system", text: string}
    | {role: "user", text: string}
    | {role: "model", parts: ModelPart[]};

export type ModelPart =
    | {type: "text", text: string}
    | {type: "thought", text: string}
    /** A tool call the model made earlier, with the result the client sent back. */
    | {type: "call", name: string, arguments: string, result: string};

/** A tool offered to the model; `parameters` is a JSON schema for the arguments object. */
export type ToolSpec = {
    name: string,
    description?: string,
    parameters?: Record<string, unknown>
};

/**
 * How tools may be used:
 * - `auto`: the model may call any offered tool or answer in text;
 * - `required`: the model must call one of `names` (all offered tools when omitted); enforced by grammar.
 */
export type ToolMode = {type: "auto"} | {type: "required", names?: string[]};

/** What changes how a prompt renders beyond turns and tools: a forced call, thinking turned off (no budget, or JSON output). */
type ShapeFields = "toolMode" | "thoughtBudget" | "reasoningEffort" | "json" | "cachePartition" | "keepPromptOnDisk" | "model";
export type PromptShape = Pick<GenerationRequest, ShapeFields> & {
    /**
     * Requests with the same key should run where the previous one ran (an upstream that holds their prefix in
     * its KV cache; the local sequence that holds it): `prompt_cache_key` or the conversation.
     */
    affinityKey?: string,
    /**
     * How long a model library keeps the request's model loaded once it ends (Ollama's `keep_alive`), in ms, for that
     * model until a later request says otherwise: Infinity, never unloaded for idleness; 0, unloaded as soon as no
     * request holds it. null: the operator's idle unload again. Absent (a token count, a compaction, a load): whatever
     * the model had stands. An engine of one model ignores it.
     */
    keepAliveMs?: number | null,
    /** Who asks (the API key's owner id): a model library keeps each caller's last use apart (`LibraryModel.lastUsedBy`). */
    usedBy?: string,
    /**
     * Called when the request has passed every check and starts to wait for a free sequence, so a stream can begin
     * (`response.created`) before a wait that may be long. Not called when a sequence is free at once.
     */
    onQueued?: () => void
};

export type {SamplingOptions} from "./completionTypes.js";

/** Streamed as the model generates, in generation order. */
export type GenerationEvent =
    | {type: "text", text: string}
    | {type: "thought", text: string}
    | {type: "thought.end"}
    | {type: "call.start", index: number, name: string}
    | {type: "call.delta", index: number, delta: string}
    /** `incomplete`: the call ended without reading to its end (an engine that read it from the model's text). */
    | {type: "call.end", index: number, incomplete?: true};

/** One token of a generated answer: its log probability and the most likely tokens at its position. */
export type TokenLogprob = {
    token: string,
    logprob: number,
    bytes: number[],
    topLogprobs: {token: string, logprob: number, bytes: number[]}[]
};

export type GenerationRequest = {
    /**
     * The library model that answers (its id, as `ChatEngine.library.resolve` gave it); an engine of one model ignores
     * it. Absent: the library's default model.
     */
    model?: string,
    turns: ChatTurn[],
    tools?: ToolSpec[],
    toolMode?: ToolMode,
    /** Stop after this many complete calls; defaults to no limit. */
    maxToolCalls?: number,
    /** Output token cap; defaults to what is left of the context. */
    maxOutputTokens?: number,
    sampling?: SamplingOptions,
    /** Constrain the answer to JSON: any object, or one matching a schema. Exclusive with tools. */
    json?: {type: "object"} | {type: "schema", schema: Record<string, unknown>},
    /** Thought token budget for reasoning models; 0 turns thinking off. */
    thoughtBudget?: number,
    /** The `reasoning.effort` the client asked for, if any: for engines that take a named level (Chat Completions' `reasoning_effort`). */
    reasoningEffort?: ReasoningEffort,
    /** Score the answer text's tokens, with this many alternatives each (0–20); computed after generation. */
    logprobs?: {top: number},
    /**
     * Text that ends this answer as an end-of-turn would (Chat Completions' `stop`, Messages' `stop_sequences`), besides
     * the operator's (`--stop`): the generation stops there and the text is cut before it. Watches the answer only, not
     * thoughts or calls. Defaults to none.
     */
    stopSequences?: readonly string[],
    signal?: AbortSignal,
    onEvent?: (event: GenerationEvent) => void,
    /** Called as the prompt is evaluated, step by step (a long prompt on a full-size model takes minutes). */
    onPromptProgress?: (progress: PromptProgress) => void,
    /**
     * Whose cached prompts this one may reuse, in memory and on disk: the API key's owner id (or one shared name when
     * the operator lets keys share). A prefix is never reused, timed or counted across partitions. Defaults to `""`.
     */
    cachePartition?: string,
    /**
     * Whether the evaluated prompt may be saved to the prompt cache on disk: only for a response the client asked to
     * store (`store: false` prompts stay in memory). Defaults to false.
     */
    keepPromptOnDisk?: boolean
};

export type PromptProgress = {
    /** Prompt tokens in the sequence so far: the reused prefix plus those evaluated for this request. */
    evaluated: number,
    /** Tokens of the whole prompt. */
    total: number,
    /** Of `evaluated`, the tokens the sequence already held (not evaluated again). */
    reused: number
};

/**
 * Where a prompt's cached prefix came from: the sequence it ran on held it (`same_sequence`), it was copied from
 * another sequence (`other_sequence`), or loaded from a prompt state saved on disk (`disk`).
 */
export type PrefixSource = "same_sequence" | "other_sequence" | "disk";

export type GenerationUsage = {
    /** Tokens of the rendered prompt. */
    inputTokens: number,
    /** Prompt tokens the sequence already held and did not evaluate again. */
    cachedTokens: number,
    /** Where `cachedTokens` came from, when there were any and the engine can tell (the local engine). */
    prefixSource?: PrefixSource,
    outputTokens: number,
    reasoningTokens: number,
    /** With speculative decoding: tokens the predictor proposed and the model checked (accepted or not). */
    draftedTokens?: number,
    /** With speculative decoding: of `draftedTokens`, those the model confirmed (each saved one evaluation step). */
    acceptedTokens?: number
};

export type GenerationResult = {
    stopReason: "stop" | "length" | "abort" | "tool_calls",
    /**
     * The stop sequence (the operator's or the request's) the answer ended at; absent when it ended otherwise or the
     * engine cannot tell.
     */
    stopSequence?: string,
    text: string,
    calls: {name: string, arguments: string}[],
    usage: GenerationUsage,
    /** With `request.logprobs`: one entry per token of the answer text (`text` events, in order). */
    logprobs?: TokenLogprob[],
    /** Milliseconds from the start of the call to the first generated token (null when none came). */
    timeToFirstTokenMs: number | null
};

export type EngineState = "unloaded" | "loading" | "ready" | "failed";

export type ModelInfo = {
    /** The name clients see in `model` and `GET /v1/models`. */
    id: string,
    path: string,
    contextSize: number,
    sequences: number,
    trainContextSize: number,
    chatWrapper: string,
    /** The chat format in use and whether the model's own tool-call syntax is understood (engine/llama/families/). */
    chatFormat?: {wrapper: string, family: string | null, toolCallsUnderstood: boolean},
    /** The model's own name in its metadata (GGUF `general.name`), when it has one. */
    name?: string,
    /** Whether the local model has fill-in-the-middle tokens (a `suffix` completion needs them); absent: not known (upstream). */
    fillInTheMiddle?: boolean,
    /** The local model's architecture (GGUF `general.architecture`: llama, qwen2, …), when its file says. */
    architecture?: string,
    /** The local model's KV cache key type, and why it is not the one asked for (`usableKeyCacheType`). */
    keyCache?: {type: KeyCacheType, note: string | null},
    /** The local model's tokens per native evaluation (`backendDefaults` of its backend unless set). */
    batchSize?: number,
    /** The local model's flash attention (`backendDefaults` of its backend unless set): "auto" leaves it to llama.cpp. */
    flashAttention?: boolean | "auto",
    /** Where the local model computes (describeBackend words it). */
    backend?: ModelBackend
};

/** A compute backend of node-llama-cpp's prebuilt builds (prebuiltBinaries.ts names their packages). */
export type ComputeBackend = "cpu" | "metal" | "vulkan" | "cuda";

/**
 * The backend a local model runs on: `cpu` where none of its layers is on a GPU (the Metal build with `gpu: false`
 * included); the GPU's device names as node-llama-cpp tells them; its layers on the GPU of its total (node-llama-cpp
 * counts the output layer: block count + 1); the VRAM its weights and context take by node-llama-cpp's estimate.
 */
export type ModelBackend = {name: ComputeBackend, devices: readonly string[], gpuLayers: number, totalLayers: number, vramBytes: number};

/** A sequence held for one generation; release it when done (also when generation was never started). */
export type EngineLease = {
    readonly promptTokens: number,
    /** Prompt tokens the sequence already held when it was handed out. */
    readonly cachedPrefixTokens: number,
    generate(request: GenerationRequest): Promise<GenerationResult>,
    release(): void
};

/**
 * Where an engine generates: `local`, a GGUF model loaded in this process; `upstream`, the Chat Completions servers it
 * fronts. What a caller needs to know about the engine it has (what "no model" means, say), so it never tests a class.
 */
export type EngineKind = "local" | "upstream";

/**
 * What the Responses layer needs from an engine; raw completion and embeddings (`RawEngine`, completionTypes.ts) where
 * the engine can do them.
 */
export interface ChatEngine extends Partial<RawEngine> {
    readonly kind: EngineKind;
    readonly state: EngineState;
    readonly model: ModelInfo | null;
    /** Waits for a sequence for this prompt; rejects with `queue_full` or `context_overflow` at once. */
    acquire(turns: ChatTurn[], tools: ToolSpec[], signal?: AbortSignal, shape?: PromptShape): Promise<EngineLease>;
    generate(request: GenerationRequest): Promise<GenerationResult>;
    /** The prompt's tokens as `model` (a library's model id; ignored by an engine of one model) renders it. */
    countPromptTokens(turns: ChatTurn[], tools?: ToolSpec[], model?: string): Promise<number>;
    stats(): EngineStats;
    /** With several models (`--models-dir`, more than one `--model`): which names it serves, and their state. */
    readonly library?: ModelDirectory;
}

/** A library model's state: `failed` keeps the reason of its last load (a new request tries again). */
export type LibraryModelStatus = "loaded" | "loading" | "unloaded" | "failed";

/** One model of a library as `GET /v1/models`, `/v1/status` and the editor show it. */
export type LibraryModel = {
    id: string,
    /** Other names that select it (the presets file's `aliases`). */
    aliases: readonly string[],
    path: string,
    /** Bytes of its GGUF file(s). */
    fileBytes: number,
    /** The quantization its file name says (Q4_K_M, Q8_0, F16…), when it says. */
    quantization: string | null,
    status: LibraryModelStatus,
    /** Why its last load failed (status `failed`). */
    failure: string | null,
    /** node-llama-cpp's estimate of the memory it takes loaded (weights + contexts), once estimated. */
    estimatedBytes: number | null,
    /** Its model info while loaded. */
    info: ModelInfo | null,
    /** Context size per sequence it is loaded with, or will be (its preset's, else the server's; null: the model's own). */
    contextSize: number | null,
    /** Requests holding or waiting for one of its sequences. */
    inFlight: number,
    /** Epoch milliseconds of its last request's end (null: never used since the server started). */
    lastUsedAt: number | null,
    /** Each caller's (`PromptShape.usedBy`) own last use of it, epoch milliseconds: what a key may be shown of the timing. */
    lastUsedBy: ReadonlyMap<string, number>,
    /**
     * How long it stays loaded once idle, in milliseconds: its last request's `keep_alive`, else the operator's
     * `--idle-unload-secs`; null: it is never unloaded for idleness.
     */
    keepAliveMs: number | null,
    /** Epoch milliseconds at which it unloads for idleness (loaded, nothing in flight, a keep-alive in force); else null. */
    idleUnloadAt: number | null,
    stats: EngineStats | null,
    /**
     * Set for a model an upstream serves beside the local ones (`RoutedEngine`): the upstreams' hosts. It has no file,
     * size or memory estimate here (`fileBytes` 0) and is `loaded` while the upstreams are connected.
     */
    upstreamHosts?: readonly string[]
};

/** The names a library serves and the models behind them; loading and unloading by id. */
export interface ModelDirectory {
    /** The id of the model that serves `requested` (an id or an alias; null: the default model), else a `model_not_found` EngineError. */
    resolve(requested: string | null): string;
    list(): LibraryModel[];
    /** The model loaded now (unloading least recently used idle ones to make room); resolves when it is ready. */
    loadModel(id: string, onProgress?: (progress: LoadProgress) => void, keepAliveMs?: number | null, usedBy?: string): Promise<ModelInfo>;
    /** Unloads it once its requests have finished (or `signal` ends the wait: `aborted`); false when it was not loaded. */
    unloadModel(id: string, signal?: AbortSignal): Promise<boolean>;
    /** The server's limits: at most this many loaded, within this many bytes (estimates). */
    readonly limits: {maxLoaded: number, memoryBudgetBytes: number, idleUnloadSeconds: number | null};
    /** Fires when a model's status changes or the list changes (a rescan of the models folder). */
    onChange(listener: () => void): () => void;
}

export type EngineStats = {
    sequencesBusy: number,
    sequencesTotal: number,
    queueDepth: number,
    queueLimit: number,
    /** The local engine's speculative decoding (`off` when none): its kind and predicted tokens since the model loaded. */
    speculative?: {kind: SpeculativeKind, draftedTokens: number, acceptedTokens: number},
    /** With the upstream engine: each upstream server's state, load and errors. */
    upstreams?: UpstreamStats[],
    /** A model in a process of its own (`--model-isolation process`): that process's id and resident memory, as it last said. */
    process?: {pid: number, rssBytes: number}
};

export type UpstreamStats = {
    /** The upstream's base URL, without credentials. */
    url: string,
    state: "unknown" | "up" | "down",
    /** Requests sent and not finished. */
    outstanding: number,
    requests: number,
    errors: number,
    lastError: string | null
};

/** The `gpu` setting / `--gpu` flag: `false` is the CPU only, `"auto"` any GPU backend there is. */
export type GpuChoice = "auto" | false | "cuda" | "vulkan" | "metal";

/**
 * Speculative decoding: `lookup` predicts the next tokens from the prompt (an answer that copies it, as edits and
 * rewrites do), `draft` from a small draft model with the same vocabulary; the model checks each prediction, so the
 * output is the same as without (greedy: token for token).
 */
export type SpeculativeKind = "off" | "lookup" | "draft";

/** How far loading has come: the native binding, the model's weights, then its context (0 to 1 each). */
export type LoadProgress = {phase: "binding" | "model" | "context", progress: number};

/**
 * A finished generation as engines report it to their listeners (the inspector's timings, the status bar's totals).
 * `model`: the name of the model that generated it, as responses carry it, set where one engine serves several (a model
 * library, the upstream engine); absent: the engine's one model.
 */
export type GenerationSummary = GenerationResult & {durationMs: number, model?: string};
