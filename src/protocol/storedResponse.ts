import type {ResponseTimings} from "./timings.js";
import type {Item, ResponseObject} from "./wire.js";

/** A finished response as storage keeps it. */
export type StoredResponse = {
    readonly response: ResponseObject,
    /** The full input history of the response (inherited turns included), excluding its own output. */
    readonly inputItems: readonly Item[],
    readonly owner: string,
    /** Where its time went (queue, first token, generation), when it was generated here and finished. */
    readonly timings?: ResponseTimings
};
