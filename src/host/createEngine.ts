import {GenerationActivity} from "../engine/GenerationActivity.js";
import type {HostedEngine} from "../engine/HostedEngine.js";
import {autoChatWrapper} from "../engine/llama/families/chatFormatChoice.js";
import {LlamaEngine, type LlamaEngineOptions} from "../engine/llama/LlamaEngine.js";
import type {LibraryModelSpec} from "../engine/library/LibraryEntry.js";
import {ModelLibrary} from "../engine/library/ModelLibrary.js";
import {RoutedEngine} from "../engine/library/RoutedEngine.js";
import {availableMemoryNow} from "../engine/models/modelFit.js";
import {ModelFitWorker} from "../engine/models/ModelFitWorker.js";
import type {SpeculativeSetting} from "../engine/llama/runtime/SpeculativeDecoding.js";
import {UpstreamEngine} from "../engine/upstream/UpstreamEngine.js";
import {ProcessEngine, warmBinding} from "../engine/process/ProcessEngine.js";
import {SpareModelProcess} from "../engine/process/SpareModelProcess.js";
import path from "node:path";
import {
    defaultPromptCacheMaxBytes, defaultPromptCacheMinTokens, defaultPromptCacheTtlSeconds
} from "../engine/llama/runtime/PromptStateCache.js";
import type {HostConfig} from "./config.js";
import {usesLibrary} from "./librarySpecs.js";

/**
 * The engine the host serves, and the parts of it the host drives itself: the model library it lists the models of (null
 * without one), and the upstreams beside that library, which it connects (null unless both are served).
 */
export type CreatedEngine = {engine: HostedEngine, library: ModelLibrary | null, upstreamBeside: HostedEngine | null};

/**
 * The engine the configuration names: node-llama-cpp on a local GGUF file or a library of them, upstream Chat Completions
 * servers, or a library beside upstreams, routed by model name (`--upstream` with `--model`/`--models-dir`).
 */
export function createEngine(config: HostConfig, log?: (line: string) => void): CreatedEngine {
    if (config.engine === "upstream")
        return {engine: upstreamEngine(config, log), library: null, upstreamBeside: null};
    if (!usesLibrary(config))
        return {engine: new LlamaEngine(llamaOptions(config, log)), library: null, upstreamBeside: null};
    const library = createLibrary(config, log);
    if (!config.library.withUpstream)
        return {engine: library, library, upstreamBeside: null};
    const upstream = upstreamEngine(config, log, library);
    return {engine: new RoutedEngine({local: library, upstream}), library, upstreamBeside: upstream};
}

/**
 * The upstream engine; beside a library (`besides`) its models keep their own names and the context the upstreams report
 * (`--model-alias` and `--context-size` are the local models' there, as in any library), and it counts in the library's activity.
 */
function upstreamEngine(config: HostConfig, log?: (line: string) => void, besides?: ModelLibrary): UpstreamEngine {
    return new UpstreamEngine({
        urls: config.upstream.urls,
        apiKey: config.upstream.apiKey,
        alias: besides == null ? config.modelAlias : null,
        timeoutSeconds: config.upstream.timeoutSeconds,
        healthIntervalMs: config.upstream.healthIntervalMs,
        contextSize: besides == null ? config.contextSize : null,
        parallel: config.parallel ?? undefined,
        queueLimit: config.queueLimit,
        stopSequences: config.stopSequences,
        activity: besides?.activity,
        log
    });
}

/** The local engine's options from the configuration (one model's; a library's models each get theirs from it). */
function llamaOptions(config: HostConfig, log?: (line: string) => void): LlamaEngineOptions {
    return {
        threads: config.threads,
        promptThreads: config.promptThreads,
        contextSize: config.contextSize ?? undefined,
        batchSize: config.batchSize ?? undefined,
        parallel: config.parallel ?? undefined,
        queueLimit: config.queueLimit,
        gpu: config.gpu,
        flashAttention: config.flashAttention ?? undefined,
        cacheTypeK: config.cacheTypeK,
        speculative: speculativeOf(config),
        busyPollBelowTokenMs: config.busyPollBelowTokenMs,
        stopSequences: config.stopSequences,
        alias: config.modelAlias ?? undefined,
        chatFormat: config.chatFormat,
        promptCache: promptCacheOf(config, log)
    };
}

/**
 * A model library: each model a `LlamaEngine` with the server's settings and its preset's (context, sequences, chat
 * format), its prompt cache in a folder of its own (two caches never sweep one folder) within the one budget of the
 * whole `prompt-states/` folder, no draft model (a draft must share
 * one model's vocabulary), in a process of its own unless `--model-isolation shared` (`ProcessEngine`). The models are
 * listed by the host (`LocalResponsesHost.openLibrary`), which scans files. Their headers are read in a worker with a
 * time and heap cap (`ModelFitWorker`): any file dropped in the models folder is read, and a crafted one must not hurt
 * the server.
 */
function createLibrary(config: HostConfig, log?: (line: string) => void): ModelLibrary {
    const base = llamaOptions(config, log);
    // Each model in a process of its own: one started ahead takes ~1 s off the next on-demand load.
    const activity = new GenerationActivity();
    const spare = config.library.isolation === "process" ? new SpareModelProcess(warmBinding(base), {activity, log}) : undefined;
    spare?.startNow();
    const fitWorker = new ModelFitWorker();
    const settings = (spec: LibraryModelSpec) => ({
        contextSize: spec.contextSize ?? undefined, parallel: spec.parallel ?? undefined
    });
    return new ModelLibrary({
        models: [],
        createEngine: (spec, activity) => {
            const options: LlamaEngineOptions = {
                ...base, ...settings(spec), alias: spec.id, activity,
                speculative: base.speculative?.kind === "draft" ? {kind: "off"} : base.speculative,
                chatFormat: {wrapper: spec.chatWrapper ?? autoChatWrapper, template: spec.chatTemplate ?? null},
                promptCache: base.promptCache == null ? undefined
                    : {...base.promptCache, folder: libraryModelStatesFolder(base.promptCache.folder, spec.id),
                        budgetFolder: base.promptCache.folder}
            };
            return spare != null ? new ProcessEngine({...options, name: spec.id, log, spare}) : new LlamaEngine(options);
        },
        estimate: async (spec) => {
            const fit = await fitWorker.estimate({
                uri: spec.path, contextSize: spec.contextSize, sequences: spec.parallel, batchSize: config.batchSize ?? undefined
            });
            return {bytes: fit.requiredBytes, contextSize: fit.contextSize};
        },
        maxLoaded: config.library.maxLoaded,
        memoryBudgetBytes: config.library.memoryBudgetBytes ?? availableMemoryNow(),
        idleUnloadSeconds: config.library.idleUnloadSeconds,
        log,
        activity,
        shared: spare
    });
}

/** Where a library model's prompt states are: `models/<id>` in the prompt cache's folder. */
export function libraryModelStatesFolder(promptStates: string, id: string): string {
    return path.join(promptStates, "models", safeFolderName(id));
}

/** A model id as a folder name: letters, digits, `.`, `_` and `-` kept, anything else `_` (ids are file names, mostly kept). */
function safeFolderName(id: string): string {
    return id.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");
}

/**
 * The prompt cache lives beside the durable store, and only there: `--store memory` keeps nothing on disk. Null when
 * there is none.
 */
export function promptCacheOf({storage}: HostConfig, log?: (line: string) => void) {
    const maxBytes = storage.promptCacheMaxBytes ?? defaultPromptCacheMaxBytes;
    if (storage.kind !== "durable" || storage.dataDir == null || maxBytes === 0)
        return undefined;
    return {
        folder: path.join(storage.dataDir, "prompt-states"), maxBytes,
        minTokens: storage.promptCacheMinTokens ?? defaultPromptCacheMinTokens,
        ttlSeconds: storage.promptCacheTtlSeconds ?? defaultPromptCacheTtlSeconds, log
    };
}

/** The engine's speculative setting from the configuration (the CLI and the editor check that a draft names its model). */
function speculativeOf(config: HostConfig): SpeculativeSetting {
    if (config.speculative === "draft" && config.draftModelPath != null)
        return {kind: "draft", modelPath: config.draftModelPath};
    return {kind: config.speculative === "lookup" ? "lookup" : "off"};
}
