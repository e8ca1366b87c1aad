import {defaultChatFormatChoice, type ChatFormatChoice} from "../engine/llama/families/chatFormatChoice.js";
import {defaultBusyPollBelowTokenMs} from "../engine/llama/runtime/BusyPoll.js";
import {defaultGpu, defaultPromptThreads, defaultQueueLimit, defaultThreads} from "../engine/engineDefaults.js";
import type {GpuChoice, SpeculativeKind} from "../engine/types.js";
import {defaultKeyCacheType, type KeyCacheType} from "../engine/keyCacheType.js";
import {defaultUpstreamHealthIntervalMs, defaultUpstreamTimeoutSeconds} from "../engine/upstream/UpstreamEngine.js";
import {defaultBackgroundJobLimits} from "../responses/background/BackgroundJobs.js";
import {defaultSummaryMaxTokens} from "../responses/compaction/Compactor.js";
import {defaultJobEventLogLimits} from "../responses/background/JobEventLog.js";
import {defaultReasoningEchoMaxBytes} from "../responses/reasoning/ReasoningReplay.js";
import {defaultPromptCacheRetention} from "../responses/pipeline/ResponseAdmission.js";
import type {PromptCacheRetention} from "../responses/createRequest.js";
import {defaultStreamReaderLimits} from "../server/StreamReaderSlots.js";
import {defaultConversationStoreBounds} from "../store/ConversationStore.js";
import {defaultResponseStoreBounds} from "../store/ResponseStore.js";
import {defaultOwnerQuotas} from "../store/storeBounds.js";

/**
 * Everything a Local Responses server can be told, with the defaults both faces share. A default that a class applies
 * itself is declared once beside that class's options and taken from there; the rest are declared in `defaultConfig`.
 */
/**
 * A model library: the models `--model` (repeated), `--models-dir` and the presets file name, loaded on demand by the
 * request's `model` within `maxLoaded` models and `memoryBudgetBytes` (node-llama-cpp's estimates), idle ones unloaded.
 */
export type LibrarySettings = {
    /** The `--model` files after the first (the first is `modelPath`, the default model). */
    extraModelPaths: string[],
    /** Every GGUF in this folder (and its direct subfolders) is a model. */
    modelsDir: string | null,
    /** JSON or TOML: per-model path, aliases, context size, parallel sequences (docs/models.md). */
    presetsFile: string | null,
    maxLoaded: number,
    /** null: what the machine has free when the server starts. */
    memoryBudgetBytes: number | null,
    /** null: never unload for idleness. */
    idleUnloadSeconds: number | null,
    /**
     * The upstreams' models (`upstream.urls`) are served beside the library's, routed by name (`RoutedEngine`): the CLI's
     * `--upstream` with local models and the local engine (`upstreamBesideModels`); the editor's upstream URLs beside its models folder.
     */
    withUpstream: boolean,
    /** Where the library's models run: each in a process of its own (`ProcessEngine`), or all in the server's process. */
    isolation: ModelIsolation
};

export type ModelIsolation = "process" | "shared";

/** Models resident at once by default: llama.cpp's router's default. */
export const defaultMaxLoadedModels = 4;

export type HostConfig = {
    /** `local`: a GGUF file run by node-llama-cpp; `upstream`: OpenAI-compatible Chat Completions servers. */
    engine: "local" | "upstream",
    upstream: UpstreamSettings,
    modelPath: string | null,
    /** Several models on one endpoint (docs/models.md "A model library"); off while none of its sources is set. */
    library: LibrarySettings,
    /** Name reported for the model; defaults to the file name. */
    modelAlias: string | null,
    /** The chat format chosen over detection (`--chat-wrapper`, `--chat-template`; see ChatFormatChoice). */
    chatFormat: ChatFormatChoice,
    host: string,
    port: number,
    /** Accepted API keys; empty disables authentication (the CLI generates one unless told otherwise). */
    apiKeys: string[],
    /**
     * The operator's keys (`--admin-api-key`), accepted besides `apiKeys`: they see every key's traffic and may unload
     * and pin library models. None: a server of one key lets that key do so, one of several keys lets none over HTTP.
     */
    adminApiKeys: string[],
    /** Threads for generation batches (`--threads`). */
    threads: number,
    /** Threads for prompt-evaluation batches (`--prompt-threads`). */
    promptThreads: number,
    /** Context tokens per sequence; null: the engine's plan (`planContext`). */
    contextSize: number | null,
    /** Parallel sequences; null: the engine's plan (`planContext`), 1 to 4 as the context allows. */
    parallel: number | null,
    /** Tokens per native evaluation (`--batch-size`); null: `backendDefaults` of the backend (128 on the CPU, 512 on a GPU). */
    batchSize: number | null,
    queueLimit: number,
    /** The backend (`--gpu`; see chooseLlamaBinary): `defaultGpu`, "auto", unless set. */
    gpu: GpuChoice,
    /** Flash attention (`--flash-attention`); null: `backendDefaults` of the backend (off on the CPU, "auto" on a GPU). */
    flashAttention: boolean | null,
    /** The KV cache's key type (`--cache-type-k`; see KeyCacheType). */
    cacheTypeK: KeyCacheType,
    /** Speculative decoding (`--speculative`; see SpeculativeKind): off, prompt lookup, or a draft model. */
    speculative: SpeculativeKind,
    /** The draft model for `speculative: "draft"` (`--draft-model`): a GGUF file with the model's vocabulary. */
    draftModelPath: string | null,
    /**
     * Poll the event loop while a generation's tokens come less than this many ms apart (`--busy-poll-below-ms`; see
     * BusyPoll); 0 never.
     */
    busyPollBelowTokenMs: number,
    /** Text that ends a plain-text answer like the model's own end of turn (for models that never stop). */
    stopSequences: string[],
    strictModel: boolean,
    strictTools: boolean,
    /** HMAC secret for reasoning `encrypted_content` tokens (null: random per process, tokens die with it). */
    reasoningSecret: string | null,
    /** Bytes of produced reasoning remembered to re-inject when clients drop it (0 disables). */
    reasoningEchoMaxBytes: number,
    /**
     * Let every API key reuse every other key's cached prompt prefixes (`--shared-prompt-cache`): for keys that trust
     * each other. Off: each key's prompts are cached, timed and counted apart (docs/api.md "Isolation").
     */
    sharedPromptCache: boolean,
    /** What a request naming no `prompt_cache_retention` gets (`--prompt-cache-retention`; see `AdmissionOptions`). */
    promptCacheRetention: PromptCacheRetention,
    /**
     * Show every API key the server-wide traffic figures on `/metrics` and `/v1/status` (`--status-all-keys`). Off, and
     * with several keys, a key sees its own generations and tokens and only the server's occupancy (docs/api.md).
     */
    statusAllKeys: boolean,
    allowedOrigins: string[],
    bodyLimitBytes: number,
    /**
     * Seconds of silence after which a stream gets a keep-alive (an SSE comment; a ping frame every interval on
     * WebSocket, whose peer must answer before the next); 0 disables. Fractions are for tests; the flag takes whole seconds.
     */
    streamKeepAliveSeconds: number,
    /**
     * Seconds a stream's reader may leave its socket full (a client that stopped reading) before it is cut and the
     * generation feeding it stopped; the same bound for foreground streams of every protocol and for background readers.
     * Fractions are for tests.
     */
    streamWriteTimeoutSeconds: number,
    store: StoreSettings,
    /** Where stored responses, conversations, finished jobs and the sealing secrets live across restarts. */
    storage: StorageSettings,
    background: BackgroundSettings,
    conversations: ConversationSettings,
    compaction: CompactionSettings
};

/** The upstream engine (see docs/upstream.md). */
export type UpstreamSettings = {
    urls: string[],
    /** Sent to every upstream as a bearer token; never logged. */
    apiKey: string | null,
    /** The upstream model's name; null: the first the upstream lists. */
    model: string | null,
    /** Seconds an upstream may stay silent before the request fails with 504. */
    timeoutSeconds: number,
    /** Milliseconds between health checks of each upstream. */
    healthIntervalMs: number
};

/** The response store; per-key quotas of 0 are off. */
export type StoreSettings = {maxEntries: number, maxBytes: number, ttlSeconds: number, ownerMaxEntries?: number, ownerMaxBytes?: number};

/**
 * `durable`: the stores persist in `dataDir` (LevelDB in `store/`, sealing secrets in 0600 files beside it) and survive
 * restarts; `memory`: everything dies with the process, and unconfigured sealing secrets are random per process.
 */
export type StorageSettings = {
    kind: "durable" | "memory",
    dataDir: string | null,
    /** How long to wait for another process to let go of the folder before failing (a reloading editor window). Defaults to 0. */
    lockWaitMs?: number,
    /**
     * Disk budget of the prompt cache (`prompt-states/` in `dataDir`, durable store only): evaluated prompts saved to
     * be loaded after a restart instead of evaluated again. 0 turns it off. Defaults to `defaultPromptCacheMaxBytes`
     * (src/engine/llama/runtime/PromptStateCache.ts).
     */
    promptCacheMaxBytes?: number,
    /** Prompts shorter than this are not saved. Defaults to `defaultPromptCacheMinTokens`. */
    promptCacheMinTokens?: number,
    /** Seconds a saved prompt state may go unused before it is deleted (0: never). Defaults to `defaultPromptCacheTtlSeconds`. */
    promptCacheTtlSeconds?: number
};

/** Background mode limits (defaults from the reference servers; see docs/api.md "Limits and settings"). */
export type BackgroundSettings = {
    /** Active (queued + running) jobs; 0 disables background mode. */
    maxJobs: number,
    maxJobsPerKey: number,
    workers: number,
    deadlineSeconds: number,
    retentionSeconds: number,
    retainedJobs: number,
    inputMaxBytes: number,
    eventMaxCount: number,
    eventMaxBytes: number,
    streamReaders: number,
    streamReadersPerKey: number,
    streamWriteTimeoutSeconds: number
};

/** The conversation store takes the same bounds as the response store (its TTL counts from last use). */
export type ConversationSettings = Required<StoreSettings>;

export type CompactionSettings = {
    /** Tokens of newest turns kept verbatim; null: 1/16 of the context, at most 8192. */
    keepTokens: number | null,
    summaryMaxTokens: number,
    /** HMAC secret for compaction items (null: random per process, items die with it). Integrity only, not encryption. */
    secret: string | null
};

/** An upstream's base URL is http(s): the CLI's --upstream and the extension's setting check it the same way. */
export function isUpstreamUrl(raw: string): boolean {
    try {
        const {protocol} = new URL(raw);
        return protocol === "http:" || protocol === "https:";
    } catch {
        return false;
    }
}

export function defaultConfig(): HostConfig {
    const jobs = defaultBackgroundJobLimits;
    return {
        engine: "local",
        upstream: {
            urls: [], apiKey: null, model: null, timeoutSeconds: defaultUpstreamTimeoutSeconds,
            healthIntervalMs: defaultUpstreamHealthIntervalMs
        },
        modelPath: null,
        library: {
            extraModelPaths: [], modelsDir: null, presetsFile: null, maxLoaded: defaultMaxLoadedModels, memoryBudgetBytes: null,
            idleUnloadSeconds: null, withUpstream: false, isolation: "process"
        },
        modelAlias: null,
        chatFormat: {...defaultChatFormatChoice},
        host: "127.0.0.1",
        port: 8080,
        apiKeys: [],
        adminApiKeys: [],
        threads: defaultThreads(),
        promptThreads: defaultPromptThreads(),
        contextSize: null,
        batchSize: null,
        parallel: null,
        queueLimit: defaultQueueLimit,
        gpu: defaultGpu,
        flashAttention: null,
        cacheTypeK: defaultKeyCacheType,
        speculative: "off",
        draftModelPath: null,
        busyPollBelowTokenMs: defaultBusyPollBelowTokenMs,
        stopSequences: [],
        strictModel: false,
        strictTools: false,
        reasoningSecret: null,
        reasoningEchoMaxBytes: defaultReasoningEchoMaxBytes,
        sharedPromptCache: false,
        promptCacheRetention: defaultPromptCacheRetention,
        statusAllKeys: false,
        allowedOrigins: [],
        bodyLimitBytes: 16 * 1024 * 1024,
        streamKeepAliveSeconds: 15,
        streamWriteTimeoutSeconds: 5,
        store: {...defaultResponseStoreBounds, ...defaultOwnerQuotas},
        // Embedders and tests get memory unless they name a folder; the CLI and the extension choose durable.
        storage: {kind: "memory", dataDir: null},
        background: {
            maxJobs: jobs.maxActive, maxJobsPerKey: jobs.maxActivePerOwner, workers: jobs.workers, deadlineSeconds: jobs.deadlineSeconds,
            retentionSeconds: jobs.retentionSeconds, retainedJobs: jobs.maxRetained, inputMaxBytes: jobs.maxInputBytes,
            eventMaxCount: defaultJobEventLogLimits.maxEvents, eventMaxBytes: defaultJobEventLogLimits.maxBytes,
            streamReaders: defaultStreamReaderLimits.maxReaders, streamReadersPerKey: defaultStreamReaderLimits.maxReadersPerOwner,
            streamWriteTimeoutSeconds: 5
        },
        conversations: {...defaultConversationStoreBounds, ...defaultOwnerQuotas},
        compaction: {keepTokens: null, summaryMaxTokens: defaultSummaryMaxTokens, secret: null}
    };
}
