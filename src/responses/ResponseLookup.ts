import {responseNotFound} from "../protocol/errors.js";
import {pageById} from "./pagination.js";
import type {ResponseRepository} from "./ports.js";
import type {PreviousResponse} from "./pipeline/preparedResponse.js";
import type {ResponseObject} from "../protocol/wire.js";

export type LookupOptions = {
    /**
     * A background job's record, active or retained: its live response object and input history. Chaining to an
     * unfinished job is then refused by its status rather than as unknown, and a retained record supplies history
     * and input items even after the store evicted its copy (and before a running job is stored at all).
     */
    backgroundResponse?: (owner: string, id: string) => PreviousResponse | undefined
};

/** The read endpoints of finished responses (retrieve, input items, delete) and the lookup that chaining uses. */
export class ResponseLookup {
    public constructor(private readonly store: ResponseRepository, private readonly options: LookupOptions = {}) {}

    /** A stored response, else a background job's record (active, or retained after the store let go of it). */
    public find(owner: string, id: string): PreviousResponse | undefined {
        return this.store.get(owner, id) ?? this.options.backgroundResponse?.(owner, id);
    }

    public retrieve(owner: string, id: string): ResponseObject {
        const stored = this.store.get(owner, id);
        if (stored == null)
            throw responseNotFound(id);
        return stored.response;
    }

    public delete(owner: string, id: string): {id: string, object: "response.deleted", deleted: true} {
        if (!this.store.delete(owner, id))
            throw responseNotFound(id);
        return {id, object: "response.deleted", deleted: true};
    }

    /** The input items of a stored response or of a background job (running ones included, as OpenAI serves them). */
    public listInputItems(owner: string, id: string, query: {order?: unknown, limit?: unknown, after?: unknown}) {
        const found = this.find(owner, id);
        if (found == null)
            throw responseNotFound(id);
        return pageById(found.inputItems, query, (after) => `No input item with id '${after}' in this response.`);
    }
}
