import type {Compactor} from "./Compactor.js";
import {invalidRequest, invalidRequestBody, unsupported} from "../protocol/errors.js";
import {newId, nowSeconds} from "../protocol/ids.js";
import {normalizeInput, type ItemResolver} from "./inputItems.js";
import {isObject} from "../protocol/isObject.js";
import {toUsage} from "./ResponseAssembler.js";
import type {Item, Usage} from "../protocol/wire.js";

/** `POST /v1/responses/compact`'s answer. */
export type CompactionResponse = {
    id: string,
    object: "response.compaction",
    created_at: number,
    model: string,
    output: Item[],
    usage: Usage
};

/** Accepted and ignored: they have no meaning for one summary generation on a local model. */
const ignoredFields = new Set(["prompt_cache_key", "prompt_cache_retention", "prompt_cache_options", "reasoning", "text", "metadata", "store", "include", "tools", "tool_choice", "parallel_tool_calls", "temperature", "top_p", "truncation", "user", "safety_identifier", "service_tier"]);
const knownFields = new Set(["model", "input", "instructions", "max_output_tokens", "keep_tokens", ...ignoredFields]);

/**
 * Compacts a full history sent in `input`: the kept system/developer messages, the retained newest turns,
 * then one compaction item; or, when compacting cannot shorten it, the history unchanged. Nothing is stored; `stream`, `previous_response_id` and `conversation` are refused
 * (send the history itself).
 */
export async function compactResponse(compactor: Compactor, model: string, body: unknown, resolveItem: ItemResolver): Promise<CompactionResponse> {
    if (!isObject(body))
        throw invalidRequestBody();
    for (const field of ["stream", "previous_response_id", "conversation", "background", "context_management"])
        if (body[field] != null && body[field] !== false)
            throw unsupported(field, `'${field}' is not supported by /v1/responses/compact: send the whole history in 'input'.`);
    for (const field of Object.keys(body))
        if (!knownFields.has(field))
            throw invalidRequest(`Unknown parameter: '${field}'.`, field, "unknown_parameter");

    const maxOutputTokens = optionalInteger(body.max_output_tokens, "max_output_tokens", 1, 16_384);
    const keepTokens = optionalInteger(body.keep_tokens, "keep_tokens", 1, 1_000_000);
    if (body.instructions != null && typeof body.instructions !== "string")
        throw invalidRequest("'instructions' must be a string.", "instructions", "invalid_type");
    const input = normalizeInput(body.input, resolveItem);
    if (input.length === 0)
        throw invalidRequest("'input' must hold the history to compact.", "input", "missing_required_parameter");

    const result = await compactor.compactWindow(input, {maxOutputTokens, keepTokens, instructions: body.instructions as string | undefined});
    return {
        id: newId("resp"),
        object: "response.compaction",
        created_at: nowSeconds(),
        model,
        output: result.item == null ? result.history : [...result.history, result.item],
        usage: toUsage(result.usage)
    };
}

function optionalInteger(raw: unknown, param: string, min: number, max: number): number | null {
    if (raw == null)
        return null;
    if (typeof raw !== "number" || !Number.isInteger(raw) || raw < min || raw > max)
        throw invalidRequest(`'${param}' must be an integer from ${min} to ${max}.`, param);
    return raw;
}
