import type {Item, ResponseObject} from "../../src/protocol/wire.js";
import type {PreparedResponse} from "../../src/responses/pipeline/preparedResponse.js";

/**
 * A prepared response as `BackgroundJobs` reads it (owner, response object, history), for its unit tests: the rest
 * of a `PreparedResponse` (params, turns) is only read by the runner those tests script, so it is left out.
 */
export function preparedJob(owner: string, response: ResponseObject, history: Item[]): PreparedResponse {
    return {owner, response, history} as Partial<PreparedResponse> as PreparedResponse;
}
