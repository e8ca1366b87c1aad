import type {ChatTurn} from "../../engine/types.js";
import {conversationNotFound, invalidRequest, responseNotFound} from "../../protocol/errors.js";
import type {Compactor} from "../compaction/Compactor.js";
import type {CreateParams} from "../createRequest.js";
import type {ConversationHistory} from "../ports.js";
import type {PreviousResponse} from "./preparedResponse.js";
import type {ReasoningReplay} from "../reasoning/ReasoningReplay.js";
import type {ResponseLookup} from "../ResponseLookup.js";
import {itemsToTurns} from "../transcript.js";
import type {Item} from "../../protocol/wire.js";

export type HistoryOptions = {
    /** Expands compaction items and runs `context_management` compaction; without it, compaction items are refused. */
    compactor?: Compactor,
    /** Transcripts for `conversation`; without it, `conversation` is refused. */
    conversations?: ConversationHistory
};

/** Looks a `previous_response_id` up before the store (a WebSocket connection's `store: false` responses). */
export type ResolvePrevious = (id: string) => PreviousResponse | undefined;

/**
 * What a request continues and how the model reads it: the items inherited from `previous_response_id` or
 * `conversation`, and the chat turns a history renders to (compaction summaries expanded, reasoning restored).
 */
export class HistoryResolver {
    public constructor(
        private readonly lookup: ResponseLookup,
        private readonly reasoning: ReasoningReplay,
        private readonly options: HistoryOptions = {}
    ) {}

    /** The items before this request's input: its previous response's input and output, its conversation's, or none. */
    public inherited(owner: string, params: CreateParams, resolvePrevious?: ResolvePrevious): Item[] {
        if (params.previousResponseId != null)
            return this.previousResponse(owner, params.previousResponseId, resolvePrevious);
        if (params.conversationId != null)
            return this.conversation(owner, params.conversationId);
        return [];
    }

    /** Chat turns for `owner`'s history: compaction items replaced by their summaries, `instructions` first. */
    public render(owner: string, history: readonly Item[], instructions: string | null): ChatTurn[] {
        const items = this.options.compactor?.expand(history) ?? history;
        const turns = itemsToTurns(this.reasoning.restore(owner, items), {instructions, readReasoningToken: this.reasoning.readToken});
        if (turns.length === 0)
            turns.push({role: "user", text: ""});
        return turns;
    }

    private previousResponse(owner: string, previousId: string, resolvePrevious?: ResolvePrevious): Item[] {
        const previous = resolvePrevious?.(previousId) ?? this.lookup.find(owner, previousId);
        if (previous == null)
            throw responseNotFound(previousId, "previous_response_id");
        const status = previous.response.status;
        if (status === "queued" || status === "in_progress")
            throw invalidRequest(`previous response '${previousId}' has not finished (status: ${status}).`, "previous_response_id",
                "previous_response_not_finished");
        if (status === "failed" || status === "cancelled")
            throw invalidRequest(`previous response '${previousId}' cannot be continued (status: ${status}).`, "previous_response_id",
                "previous_response_unusable");
        return [...previous.inputItems, ...previous.response.output];
    }

    private conversation(owner: string, conversationId: string): Item[] {
        const conversations = this.options.conversations;
        if (conversations == null || !conversations.enabled)
            throw invalidRequest("Conversations are disabled on this server.", "conversation", "unsupported_parameter");
        const items = conversations.items(owner, conversationId);
        if (items == null)
            throw conversationNotFound(conversationId, "conversation");
        return [...items];
    }
}
