import type {ChatEngine} from "../../engine/types.js";
import type {AutoCompaction, Compactor} from "../compaction/Compactor.js";
import type {PromptCacheRetention} from "../createRequest.js";
import {toApiError} from "../engineErrors.js";
import {generationShape} from "./generationShape.js";
import type {HistoryResolver} from "./HistoryResolver.js";
import type {AdmittedResponse, PreparedResponse} from "./preparedResponse.js";

/**
 * Admission of a prepared request: `context_management` compaction when its history crossed the threshold, then a
 * sequence from the engine. A full queue or an oversized prompt fails here, before any event of the response.
 */
export type AdmissionOptions = {
    /**
     * Let every API key reuse every other key's cached prompt prefixes (in memory and on disk): for keys that trust each
     * other, such as one person's many agents. Defaults to false: each key's prompts are a partition of their own.
     */
    sharedPromptCache?: boolean,
    /**
     * What a request that names no `prompt_cache_retention` gets (`--prompt-cache-retention`): `24h` (the default) saves
     * its prompt to the on-disk prompt cache, so an agent's session (Codex and Claude Code send `store: false`) survives
     * a restart; `in_memory` saves only the prompts of stored responses.
     */
    promptCacheRetention?: PromptCacheRetention
};

/** What a request naming no `prompt_cache_retention` gets unless the operator says otherwise: agents' prompts kept on disk. */
export const defaultPromptCacheRetention: PromptCacheRetention = "24h";

/** The prompt-cache partition of all keys when the operator shares the cache. */
const sharedPartition = "shared";

export class ResponseAdmission {
    public constructor(
        private readonly engine: ChatEngine,
        private readonly history: HistoryResolver,
        private readonly compactor?: Compactor,
        private readonly options: AdmissionOptions = {}
    ) {}

    /** Whether the request's evaluated prompt may be saved to the on-disk prompt cache (see `AdmissionOptions`). */
    public keepsPromptOnDisk(prepared: PreparedResponse): boolean {
        const retention = prepared.params.promptCacheRetention;
        if (retention != null)
            return retention === "24h";
        return (this.options.promptCacheRetention ?? defaultPromptCacheRetention) === "24h" || prepared.params.store;
    }

    /** Whose cached prompts a request of `owner` may reuse (see `GenerationRequest.cachePartition`). */
    public cachePartition(owner: string): string {
        return this.options.sharedPromptCache === true ? sharedPartition : owner;
    }

    /**
     * Takes a sequence for the prepared request, compacting its history first when it crossed the request's
     * threshold; `onQueued` is called if the request then has to wait for one.
     */
    public async admit(prepared: PreparedResponse, signal?: AbortSignal, onQueued?: () => void): Promise<AdmittedResponse> {
        const compacted = await this.compactIfNeeded(prepared, signal);
        const admitted = compacted?.prepared ?? prepared;
        try {
            const shape = generationShape(admitted.params);
            // An upstream engine keeps requests of one cache key or conversation on one server (its KV cache).
            const affinityKey = admitted.params.promptCacheKey ?? admitted.params.conversationId ?? undefined;
            // Only a prompt the client asked to store may be written to the prompt cache on disk.
            const partition = {cachePartition: this.cachePartition(admitted.owner), keepPromptOnDisk: this.keepsPromptOnDisk(admitted)};
            const {keepAliveMs} = admitted.params;
            const lease = await this.engine.acquire(admitted.turns, shape.tools ?? [], signal,
                {...shape, ...partition, affinityKey, onQueued, model: admitted.response.model, keepAliveMs, usedBy: admitted.owner});
            return {prepared: admitted, lease, ...(compacted != null ? {compaction: compacted.compaction} : {})};
        } catch (error) {
            throw toApiError(error);
        }
    }

    /** The request with its history replaced by its compaction (turns re-rendered) when over its threshold, else undefined. */
    private async compactIfNeeded(prepared: PreparedResponse,
        signal?: AbortSignal): Promise<{prepared: PreparedResponse, compaction: AutoCompaction} | undefined> {
        const threshold = prepared.params.contextManagement?.compactThreshold;
        if (threshold == null || this.compactor == null)
            return undefined;
        const result = await this.compactor.compactIfNeeded(prepared.history, threshold, {
            instructions: prepared.params.instructions,
            tools: prepared.params.toolChoice.offered,
            cachePartition: this.cachePartition(prepared.owner),
            model: prepared.response.model,
            signal
        });
        if (result == null)
            return undefined;
        const {history, ...compaction} = result;
        const turns = this.history.render(prepared.owner, [...history, compaction.item], prepared.params.instructions);
        return {prepared: {...prepared, history, turns}, compaction};
    }
}
