import path from "node:path";
import type {LlamaContext} from "node-llama-cpp";
import type {KeyCacheType} from "../../keyCacheType.js";
import type {NodeLlamaCpp} from "../../models/loadBinding.js";
import {modelFingerprint, PromptStateCache} from "./PromptStateCache.js";

/** `LlamaEngineOptions.promptCache`: where evaluated prompts are kept on disk, and within what. */
export type PromptCacheOptions = {
    folder: string, budgetFolder?: string, maxBytes?: number, minTokens?: number, ttlSeconds?: number,
    log?: (line: string) => void
};

/**
 * The prompt-state cache for this model file and these context settings (a state is only loaded into both); null
 * without `promptCache`.
 */
export async function openPromptStates(options: PromptCacheOptions | undefined, binding: NodeLlamaCpp, modelPath: string,
    context: LlamaContext, keyCacheType: KeyCacheType): Promise<PromptStateCache | null> {
    if (options == null)
        return null;
    const settings = {
        contextSize: context.contextSize, sequences: context.totalSequences, batchSize: context.batchSize,
        flashAttention: context.flashAttention, nodeLlamaCpp: await binding.getModuleVersion(),
        // Named only when not llama.cpp's default, so that the states saved before keys had a choice stay usable.
        ...keyCacheType !== "f16" && {keyCacheType}
    };
    return PromptStateCache.open({
        folder: options.folder, budgetFolder: options.budgetFolder, maxBytes: options.maxBytes, minTokens: options.minTokens,
        ttlSeconds: options.ttlSeconds, log: options.log,
        identity: {model: await modelFingerprint(path.resolve(modelPath)), context: JSON.stringify(settings)}
    });
}
