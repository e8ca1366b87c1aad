import type {HostedEngine} from "../engine/HostedEngine.js";
import {LlamaEngine} from "../engine/llama/LlamaEngine.js";
import type {SpeculativeSetting} from "../engine/llama/runtime/SpeculativeDecoding.js";
import {UpstreamEngine} from "../engine/upstream/UpstreamEngine.js";
import path from "node:path";
import {
    defaultPromptCacheMaxBytes, defaultPromptCacheMinTokens, defaultPromptCacheTtlSeconds
} from "../engine/llama/runtime/PromptStateCache.js";
import type {HostConfig} from "./config.js";

/** The engine the configuration names: node-llama-cpp on a local GGUF file, or upstream Chat Completions servers. */
export function createEngine(config: HostConfig, log?: (line: string) => void): HostedEngine {
    if (config.engine === "upstream")
        return new UpstreamEngine({
            urls: config.upstream.urls,
            apiKey: config.upstream.apiKey,
            alias: config.modelAlias,
            timeoutSeconds: config.upstream.timeoutSeconds,
            healthIntervalMs: config.upstream.healthIntervalMs,
            contextSize: config.contextSize,
            parallel: config.parallel ?? undefined,
            queueLimit: config.queueLimit,
            stopSequences: config.stopSequences,
            log
        });
    return new LlamaEngine({
        threads: config.threads,
        promptThreads: config.promptThreads,
        contextSize: config.contextSize ?? undefined,
        batchSize: config.batchSize ?? undefined,
        parallel: config.parallel ?? undefined,
        queueLimit: config.queueLimit,
        gpu: config.gpu,
        flashAttention: config.flashAttention,
        cacheTypeK: config.cacheTypeK,
        speculative: speculativeOf(config),
        busyPollBelowTokenMs: config.busyPollBelowTokenMs,
        stopSequences: config.stopSequences,
        alias: config.modelAlias ?? undefined,
        chatFormat: config.chatFormat,
        promptCache: promptCacheOf(config, log)
    });
}

/** The prompt cache lives beside the durable store, and only there: `--store memory` keeps nothing on disk. */
function promptCacheOf({storage}: HostConfig, log?: (line: string) => void) {
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
