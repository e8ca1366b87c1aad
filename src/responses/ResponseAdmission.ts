import type {ChatEngine, EngineLease} from "../engine/types.js";
import type {Compactor} from "./Compactor.js";
import {toApiError} from "./engineErrors.js";
import {generationShape} from "./generationShape.js";
import type {HistoryResolver} from "./HistoryResolver.js";
import type {PreparedResponse} from "./preparedResponse.js";

/**
 * Admission of a prepared request: `context_management` compaction when its history crossed the threshold, then a
 * sequence from the engine. A full queue or an oversized prompt fails here, before any event of the response.
 */
export class ResponseAdmission {
    public constructor(
        private readonly engine: ChatEngine,
        private readonly history: HistoryResolver,
        private readonly compactor?: Compactor
    ) {}

    /** Takes a sequence for the prepared request; `onQueued` is called if the request then has to wait for one. */
    public async admit(prepared: PreparedResponse, signal?: AbortSignal, onQueued?: () => void): Promise<EngineLease> {
        await this.compactIfNeeded(prepared, signal);
        try {
            const shape = generationShape(prepared.params);
            // An upstream engine keeps requests of one cache key or conversation on one server (its KV cache).
            const affinityKey = prepared.params.promptCacheKey ?? prepared.params.conversationId ?? undefined;
            return await this.engine.acquire(prepared.turns, shape.tools ?? [], signal, {...shape, affinityKey, onQueued});
        } catch (error) {
            throw toApiError(error);
        }
    }

    /** Replaces the history by its compaction (and re-renders the turns) when it is over the request's threshold; once. */
    private async compactIfNeeded(prepared: PreparedResponse, signal?: AbortSignal): Promise<void> {
        const threshold = prepared.params.contextManagement?.compactThreshold;
        if (threshold == null || this.compactor == null || prepared.compaction != null)
            return;
        const result = await this.compactor.compactIfNeeded(prepared.history, threshold, {
            instructions: prepared.params.instructions,
            tools: prepared.params.toolChoice.offered,
            signal
        });
        if (result == null)
            return;
        const {history, ...compaction} = result;
        prepared.history = history;
        prepared.turns = this.history.render([...history, compaction.item], prepared.params.instructions);
        prepared.compaction = compaction;
    }
}
