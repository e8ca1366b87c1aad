import type {ChatTurn} from "../../engine/types.js";
import type {AutoCompaction} from "../compaction/Compactor.js";
import type {CreateParams} from "../createRequest.js";
import type {ResponseTimings} from "../../protocol/timings.js";
import type {Item, ResponseObject} from "../../protocol/wire.js";

/**
 * The API a request came in through: each maps onto the Responses path, and metrics count them apart. `vscode_lm` is
 * the editor's own chat, answered in process.
 */
export type ApiProtocol = "responses" | "chat_completions" | "messages" | "vscode_lm";

/**
 * A request checked and resolved up to the point where generation starts: what `RequestPreparer` makes,
 * `ResponseAdmission` compacts and admits, `GenerationRunner` runs, and a background job carries.
 */
export type PreparedResponse = {
    readonly params: CreateParams,
    readonly owner: string,
    /** The API the request came in through (a Chat Completions or Messages body is mapped onto a create body). */
    readonly protocol: ApiProtocol,
    /** The full input history (inherited turns, then this request's input); replaced when `admit` compacts it. */
    history: Item[],
    /** This request's own input items (appended to its conversation when it finishes). */
    readonly input: Item[],
    turns: ChatTurn[],
    /** Set by `admit` when `context_management` compacted the history. */
    compaction?: AutoCompaction,
    /** The response object as created, before generation. */
    readonly response: ResponseObject,
    /** `performance.now()` when the request was accepted: queue wait is measured from here. */
    readonly acceptedAt: number,
    /** Set by `run` when generation finished (a background job's record shows them in the editor's inspector). */
    timings?: ResponseTimings,
    /** Set by `announce`: the stream's next sequence number once its opening events went out before admission. */
    announcedThrough?: number,
    /**
     * Text that ends the answer: Chat Completions' `stop` and Messages' `stop_sequences`, set by their adapters (the
     * Responses API has none).
     */
    readonly stopSequences?: readonly string[],
    /** Set by `run` when the answer ended at one of the stop sequences (Messages reports it as `stop_sequence`). */
    stoppedAt?: string
};

/** A finished response and its input history, as `previous_response_id` continues it. */
export type PreviousResponse = {readonly response: ResponseObject, readonly inputItems: readonly Item[]};
