import type {StoredResponse} from "../protocol/storedResponse.js";
import type {ResponseTimings} from "../protocol/timings.js";
import type {ConversationObject, Item, ResponseObject} from "../protocol/wire.js";

/**
 * What the Responses domain needs of storage, declared here and implemented in src/store (the in-memory stores, with
 * an optional durable journal). A new kind of storage is a new implementation of these, not an edit of the service.
 */


/** Finished responses by owner (API key) and id: `store: true`, `previous_response_id`, `item_reference`. */
export interface ResponseRepository {
    /** False when storage is turned off (0 entries): `store: true` is then a no-op, background mode refused. */
    readonly enabled: boolean;
    /** Keeps a finished response; false when it cannot (too large, storage off). */
    put(owner: string, response: ResponseObject, inputItems: readonly Item[], timings?: ResponseTimings): boolean;
    get(owner: string, id: string): StoredResponse | undefined;
    has(owner: string, id: string): boolean;
    /** An item of any of the owner's stored responses (input or output), by id. */
    findItem(owner: string, itemId: string): Item | undefined;
    delete(owner: string, id: string): boolean;
    /**
     * Resolves once every response put so far would survive the process being killed (at once without a durable
     * journal). A response is reported finished only after this: a client told "completed" can always read it back.
     */
    written(): Promise<void>;
}

/** Conversations' items by owner and id: the history a `conversation` request reads and appends to. */
export interface ConversationHistory {
    /** False when conversations are turned off. */
    readonly enabled: boolean;
    items(owner: string, id: string): readonly Item[] | undefined;
    /** Appends a finished response's input and output; false when the conversation is gone. */
    append(owner: string, id: string, items: readonly Item[]): boolean;
    /** Resolves once every append so far would survive the process being killed (at once without a durable journal). */
    written(): Promise<void>;
}

/** Conversations themselves, for the Conversations API: created, read, renamed by metadata, trimmed and deleted per owner. */
export interface ConversationRepository extends ConversationHistory {
    create(owner: string, items: readonly Item[], metadata: Record<string, string>): ConversationObject;
    get(owner: string, id: string): ConversationObject | undefined;
    /** Undefined when the conversation is gone. */
    updateMetadata(owner: string, id: string, metadata: Record<string, string>): ConversationObject | undefined;
    deleteItem(owner: string, id: string, itemId: string): "deleted" | "no_conversation" | "no_item";
    delete(owner: string, id: string): boolean;
}
