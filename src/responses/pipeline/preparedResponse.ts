import type {ChatTurn, EngineLease} from "../../engine/types.js";
import type {AutoCompaction} from "../compaction/Compactor.js";
import type {CreateParams} from "../createRequest.js";
import type {ResponseTimings} from "../../protocol/timings.js";
import type {Item, ResponseObject} from "../../protocol/wire.js";

/**
 * The API a request came in through: each maps onto the Responses path, and metrics count them apart. `vscode_lm` is
 * the editor's own chat, answered in process.
 */
export type ApiProtocol =
    | "responses" | "chat_completions" | "messages" | "vscode_lm" | "vscode_completions" | "completions" | "infill" | "embeddings";

/**
 * A request checked and resolved up to the point where generation starts: what `RequestPreparer` makes and a
 * background job carries. Each stage returns its own value instead of writing into this one: admission an
 * `AdmittedResponse`, the run a `GenerationOutcome`.
 */
export type PreparedResponse = {
    readonly params: CreateParams,
    readonly owner: string,
    /** The API the request came in through (a Chat Completions or Messages body is mapped onto a create body). */
    readonly protocol: ApiProtocol,
    /** The full input history: inherited turns, then this request's input. */
    readonly history: readonly Item[],
    /** This request's own input items (appended to its conversation when it finishes). */
    readonly input: readonly Item[],
    /** The history rendered as the engine's chat turns. */
    readonly turns: ChatTurn[],
    /** The response object as created, before generation; the run's assembler fills it in (a background job polls it). */
    readonly response: ResponseObject,
    /** `performance.now()` when the request was accepted: queue wait is measured from here. */
    readonly acceptedAt: number,
    /**
     * Text that ends the answer: Chat Completions' `stop` and Messages' `stop_sequences`, set by their adapters (the
     * Responses API has none).
     */
    readonly stopSequences?: readonly string[]
};

/**
 * A prepared request holding a sequence: what admission returns and the run takes. When `context_management`
 * compacted its history, `prepared` carries the compacted history and turns, and `compaction` what it did.
 */
export type AdmittedResponse = {
    readonly prepared: PreparedResponse,
    readonly lease: EngineLease,
    readonly compaction?: AutoCompaction,
    /** The stream's next sequence number when its opening events went out while the request waited (`announce`). */
    readonly announcedThrough?: number
};

/** What a run returns: the finished (or failed) response, the history it answers, where it stopped and its timings. */
export type GenerationOutcome = {
    readonly response: ResponseObject,
    /** The input history the response answers (compacted when admission compacted it): what is stored with it. */
    readonly history: readonly Item[],
    /** The stop sequence the answer ended at (Messages reports it as `stop_sequence`); absent when none. */
    readonly stopSequence?: string,
    /** What the generation measured; absent when the engine failed before a result. */
    readonly timings?: ResponseTimings
};

/** A finished response and its input history, as `previous_response_id` continues it. */
export type PreviousResponse = {readonly response: ResponseObject, readonly inputItems: readonly Item[]};
