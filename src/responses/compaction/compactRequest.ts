import type {Compactor} from "./Compactor.js";
import {invalidRequestBody} from "../../protocol/errors.js";
import {newId, nowSeconds} from "../../protocol/ids.js";
import {normalizeInput, type ItemResolver} from "../inputItems.js";
import {isObject} from "../../protocol/isObject.js";
import {toUsage} from "../wireShapes.js";
import {checkBody, validateCompactRequest} from "../requestSchemas/validators.js";
import type {Item, Usage} from "../../protocol/wire.js";

/** `POST /v1/responses/compact`'s answer. */
export type CompactionResponse = {
    id: string,
    object: "response.compaction",
    created_at: number,
    model: string,
    output: Item[],
    usage: Usage
};

/**
 * Compacts a full history sent in `input`: the kept system/developer messages, the retained newest turns,
 * then one compaction item; or, when compacting cannot shorten it, the history unchanged. Nothing is stored; the body's
 * schema (`schemas/compactRequest.ts`) refuses `stream`, `previous_response_id` and `conversation` (send the history itself).
 */
export async function compactResponse(
    compactor: Compactor, servedModel: (requested: string | null) => string, body: unknown, resolveItem: ItemResolver,
    cachePartition: string
): Promise<CompactionResponse> {
    if (!isObject(body))
        throw invalidRequestBody();
    const request = checkBody(validateCompactRequest, body);
    const model = servedModel(typeof request.model === "string" ? request.model : null);
    const input = normalizeInput(request.input, resolveItem);
    const result = await compactor.compactWindow(input, {
        maxOutputTokens: request.max_output_tokens ?? null,
        keepTokens: request.keep_tokens ?? null,
        instructions: request.instructions ?? undefined,
        cachePartition,
        model
    });
    return {
        id: newId("resp"),
        object: "response.compaction",
        created_at: nowSeconds(),
        model,
        output: result.item == null ? result.history : [...result.history, result.item],
        usage: toUsage(result.usage)
    };
}
