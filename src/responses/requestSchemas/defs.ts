import type {ReasoningEffort, ReasoningSummary} from "../../protocol/wire.js";
import {always, note} from "./errorNotes.js";
import {clientSchema, namePattern, strictFlag} from "./fields.js";
import {itemDefs} from "./itemDefs.js";
import {toolDefs} from "./toolDefs.js";

/** OpenAI's metadata rule: at most 16 string pairs, keys up to 64 characters, values up to 512. */
const metadataRule = "'metadata' takes at most 16 string values, keys up to 64 characters and values up to 512.";
const metadata = {
    type: ["object", "null"],
    maxProperties: 16,
    propertyNames: {maxLength: 64, ...always(metadataRule)},
    additionalProperties: {type: "string", maxLength: 512, ...always(metadataRule)},
    errors: {type: note("'{param}' must be an object of strings.", "invalid_type"), default: note(metadataRule)}
};

const textFormat = {
    type: "object",
    discriminator: {propertyName: "type"},
    oneOf: [
        {properties: {type: {const: "text"}}, required: ["type"]},
        {properties: {type: {const: "json_object"}}, required: ["type"]},
        {
            properties: {
                type: {const: "json_schema"},
                name: {type: "string", pattern: namePattern, ...always("'{param}' must be 1-64 letters, digits, '_' or '-'.")},
                schema: clientSchema(false),
                strict: strictFlag
            },
            required: ["type", "name", "schema"]
        }
    ],
    errors: {discriminator: note("Unsupported text.format type '{value}': use text, json_object or json_schema.")}
};

const text = {
    type: ["object", "null"],
    additionalProperties: false,
    properties: {
        format: {$ref: "#/$defs/textFormat"},
        verbosity: {enum: ["low", "medium", "high", null]}
    }
};

const summary = {enum: ["auto", "concise", "detailed", null]};
const reasoning = {
    type: ["object", "null"],
    additionalProperties: false,
    properties: {
        effort: {enum: ["none", "minimal", "low", "medium", "high", "xhigh", null]},
        summary,
        generate_summary: summary
    }
};

const contextManagement = {
    type: ["array", "null"],
    items: {
        type: "object",
        discriminator: {propertyName: "type"},
        oneOf: [{
            properties: {
                type: {const: "compaction"},
                compact_threshold: {
                    type: "integer", minimum: 1, maximum: 100_000_000,
                    ...always("'compact_threshold' must be an integer from 1 to 100000000.")
                }
            },
            required: ["type", "compact_threshold"]
        }],
        errors: {discriminator: note("Unsupported context_management type '{value}': only 'compaction'.")}
    }
};

/**
 * Ollama's `keep_alive`, which every protocol takes for the model library: its type here, its value (a number of
 * seconds or a duration string) in `parseKeepAlive`.
 */
const keepAlive = {
    type: ["number", "string", "null"], maxLength: 64,
    ...always("'{param}' must be a number of seconds or a duration string such as \"5m\".", "invalid_type")
};

/** The shared `$defs` every request schema refers to as `defs#/$defs/<name>`. */
export const defsSchema = {
    $id: "defs",
    $defs: {...itemDefs, ...toolDefs, metadata, textFormat, text, reasoning, contextManagement, keepAlive}
};

export type MetadataBody = Record<string, string> | null;

export type TextFormatBody =
    | {type: "text"}
    | {type: "json_object"}
    | {type: "json_schema", name: string, schema: Record<string, unknown>, strict?: boolean | null, description?: unknown};

export type TextBody = {format?: TextFormatBody, verbosity?: "low" | "medium" | "high" | null} | null;

export type ReasoningBody = {effort?: ReasoningEffort | null, summary?: ReasoningSummary | null, generate_summary?: ReasoningSummary | null}
    | null;

export type ContextManagementBody = Array<{type: "compaction", compact_threshold: number}> | null;

export type KeepAliveBody = number | string | null;
