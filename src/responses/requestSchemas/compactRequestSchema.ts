import {always} from "./errorNotes.js";
import {inputField, inputType} from "./fields.js";
import type {InputBody} from "./itemDefs.js";

/** Accepted and ignored: they have no meaning for one summary generation on a local model. */
const ignoredFields = [
    "prompt_cache_key", "prompt_cache_retention", "prompt_cache_options", "reasoning", "text", "metadata", "store", "include", "tools",
    "tool_choice", "parallel_tool_calls", "temperature", "top_p", "truncation", "user", "safety_identifier", "service_tier"
];

/** What compacting one history cannot honour: the history is sent whole, and nothing is stored. */
const refusedFields = ["stream", "previous_response_id", "conversation", "background", "context_management"];

const historyNeeded = always("'input' must hold the history to compact.", "missing_required_parameter");

/** JSON Schema of the `POST /v1/responses/compact` body; unknown top-level names are refused. */
export const compactRequestSchema = {
    $id: "compactRequest",
    type: "object",
    additionalProperties: false,
    required: ["input"],
    properties: {
        model: {},
        input: inputField({minItems: 1, errors: {...historyNeeded.errors, type: inputType}}),
        instructions: {type: ["string", "null"], ...always("'{param}' must be a string.", "invalid_type")},
        max_output_tokens: {
            type: ["integer", "null"], minimum: 1, maximum: 16_384, ...always("'{param}' must be an integer from 1 to 16384.")
        },
        keep_tokens: {
            type: ["integer", "null"], minimum: 1, maximum: 1_000_000, ...always("'{param}' must be an integer from 1 to 1000000.")
        },
        ...Object.fromEntries(ignoredFields.map((field) => [field, {}])),
        ...Object.fromEntries(refusedFields.map((field) => [field, {
            enum: [null, false],
            ...always(`'${field}' is not supported by /v1/responses/compact: send the whole history in 'input'.`, "unsupported_parameter")
        }]))
    }
};

export type CompactRequestBody = {
    model?: unknown,
    input: InputBody,
    instructions?: string | null,
    max_output_tokens?: number | null,
    keep_tokens?: number | null
};
