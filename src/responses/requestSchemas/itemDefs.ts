import type {ItemStatus, MessagePhase, MessageRole} from "../../protocol/wire.js";
import type {ToolBody} from "./toolDefs.js";
import {always, note} from "./errorNotes.js";
import {objectRequired} from "./fields.js";

/**
 * The `$defs` of input items and their content parts, as OpenAI defines them (unknown fields inside an item are
 * ignored, as OpenAI ignores them): shared by create, compact, input_tokens and the conversation bodies.
 */

/** node-llama-cpp 3.21.1 has no multimodal input: such a part is refused by name, never dropped. */
const mediaTypes = ["input_image", "input_file", "input_audio", "input_video"];
const mediaRefused = note(
    "'{type}' content is not supported: the local engine (node-llama-cpp) has no vision or file input. Send text only.",
    "unsupported_content_type",
    {at: "type"}
);

const nonEmptyString = {type: "string", minLength: 1, ...always("'{param}' must be a non-empty string.")};
/** A client's own item id, kept so that replayed output keeps its identity. */
const id = {...nonEmptyString, type: ["string", "null"], maxLength: 256};
const status = {
    enum: ["in_progress", "completed", "incomplete", null], ...always("'{param}' must be one of in_progress, completed, incomplete.")
};
const anyString = {type: "string", ...always("'{param}' must be a string.")};

/** A part of a fixed type with a text (reasoning summaries and contents): anything else names the part. */
function textPart(type: string) {
    const refused = note(`'{param}' must be a '${type}' part with a text.`, "invalid_value", {atParent: true});
    return {
        type: "object",
        required: ["type", "text"],
        properties: {type: {const: type, errors: {default: refused}}, text: {type: "string", errors: {default: refused}}},
        errors: {
            type: note(`'{param}' must be a '${type}' part with a text.`, "invalid_value"),
            required: note(`'{item}' must be a '${type}' part with a text.`, "invalid_value", {at: ""})
        }
    };
}

/** One branch of a `type`-discriminated union: its tag and its own fields. */
function tagged(type: string, properties: Record<string, unknown> = {}, required: string[] = []) {
    return {properties: {type: {const: type}, ...properties}, required: ["type", ...required]};
}

/** Parts of every type the server cannot read: refused with the reason. */
const refusedMedia = {properties: {type: {enum: mediaTypes}}, required: ["type"], not: {}, errors: {not: mediaRefused}};

const contentPart = {
    type: "object",
    discriminator: {propertyName: "type"},
    oneOf: [
        tagged("input_text", {text: anyString}, ["text"]),
        tagged("output_text", {text: anyString}, ["text"]),
        tagged("refusal", {refusal: anyString}, ["refusal"]),
        refusedMedia
    ],
    errors: {
        type: objectRequired,
        discriminator: note("Unsupported content part type '{value}' in '{item}'.", "unsupported_value")
    }
};

/** A function or custom tool's output: a string, or text parts. */
const toolOutput = {
    type: ["string", "array"],
    items: {
        type: "object",
        if: {required: ["type"], properties: {type: {enum: mediaTypes}}},
        then: {not: {}, errors: {not: mediaRefused}},
        else: {
            required: ["type"],
            properties: {
                type: {
                    enum: ["input_text", "output_text"],
                    errors: {default: note("'{param}' must be a text part.", "invalid_value", {atParent: true})}
                }
            },
            errors: {required: note("'{item}' must be a text part.", "invalid_value", {at: ""})}
        },
        errors: {type: note("'{param}' must be a text part.", "invalid_value")}
    },
    errors: {default: note("'{param}' must be a string or an array of text parts.", "invalid_type")}
};

/** A message's fields (its `type` may be absent: an item with a `role` is a message). */
const messageFields = {
    type: "object",
    required: ["role", "content"],
    properties: {
        id,
        status,
        role: {
            enum: ["user", "assistant", "system", "developer"], ...always("'{param}' must be one of user, assistant, system, developer.")
        },
        content: {
            type: ["string", "array"], items: {$ref: "#/$defs/contentPart"},
            ...always("'{param}' must be a string or an array of content parts.", "invalid_type")
        },
        phase: {enum: ["commentary", "final_answer", null], ...always("'{param}' must be 'commentary' or 'final_answer'.")}
    }
};

const callFields = {id, status, call_id: nonEmptyString};
/** A call's tool: `namespace` names the `namespace` tool a function belongs to. */
const calledName = {name: nonEmptyString, namespace: nonEmptyString};
/** Tool search items: `call_id` pairs a client-executed search with its output (a server-executed one may have none). */
const searchFields = {
    id,
    status,
    call_id: {...nonEmptyString, type: ["string", "null"]},
    execution: {enum: ["client", "server"], ...always("'{param}' must be 'client' or 'server'.")}
};

const inputItem = {
    type: "object",
    if: {required: ["type"], properties: {type: {not: {type: "null"}}}},
    then: {
        discriminator: {propertyName: "type"},
        oneOf: [
            {...tagged("message"), allOf: [{$ref: "#/$defs/messageFields"}]},
            tagged("function_call", {...callFields, ...calledName, arguments: anyString}, ["call_id", "name", "arguments"]),
            tagged("function_call_output", {...callFields, output: {$ref: "#/$defs/toolOutput"}}, ["call_id", "output"]),
            tagged("custom_tool_call", {...callFields, ...calledName, input: anyString}, ["call_id", "name", "input"]),
            tagged("tool_search_call", {...searchFields, arguments: {}}, ["arguments"]),
            tagged("tool_search_output", {
                ...searchFields,
                tools: {type: "array", items: {$ref: "#/$defs/tool"}, ...always("'{param}' must be an array of tools.", "invalid_type")}
            }, ["tools"]),
            tagged("custom_tool_call_output", {...callFields, output: {$ref: "#/$defs/toolOutput"}}, ["call_id", "output"]),
            tagged("reasoning", {
                id,
                summary: {type: "array", items: textPart("summary_text"), errors: {type: note("'{param}' must be an array.")}},
                content: {
                    type: ["array", "null"], items: textPart("reasoning_text"), errors: {type: note("'{param}' must be an array or null.")}
                },
                encrypted_content: {type: ["string", "null"], ...always("'{param}' must be a string.")}
            }),
            tagged("compaction", {id, encrypted_content: nonEmptyString}, ["encrypted_content"]),
            tagged("item_reference", {id: nonEmptyString}, ["id"])
        ],
        errors: {discriminator: note("Unsupported input item type '{value}' in '{item}'.", "unsupported_value")}
    },
    else: {
        if: {required: ["role"]},
        then: {$ref: "#/$defs/messageFields"},
        else: {
            required: ["type"],
            errors: {required: note("'{item}' needs a 'type' (or a 'role' for a message).", "missing_required_parameter")}
        }
    },
    errors: {type: objectRequired}
};

export const itemDefs = {contentPart, toolOutput, messageFields, inputItem};

// The shapes the schemas above admit.

export type ContentPartBody =
    | {type: "input_text", text: string}
    | {type: "output_text", text: string, annotations?: unknown}
    | {type: "refusal", refusal: string};

export type ToolOutputBody = string | Array<{type: "input_text" | "output_text", text?: unknown}>;

type CallFields = {id?: string | null, status?: ItemStatus | null, call_id: string};
type SearchFields = {id?: string | null, status?: ItemStatus | null, call_id?: string | null, execution?: "client" | "server"};

export type InputItemBody =
    | {
        type?: "message" | null, id?: string | null, status?: ItemStatus | null, role: MessageRole, content: string | ContentPartBody[],
        phase?: MessagePhase | null
    }
    | CallFields & {type: "function_call", name: string, namespace?: string, arguments: string}
    | CallFields & {type: "function_call_output", output: ToolOutputBody}
    | CallFields & {type: "custom_tool_call", name: string, namespace?: string, input: string}
    | SearchFields & {type: "tool_search_call", arguments: unknown}
    | SearchFields & {type: "tool_search_output", tools: ToolBody[]}
    | CallFields & {type: "custom_tool_call_output", output: ToolOutputBody}
    | {
        type: "reasoning", id?: string | null, summary?: Array<{type: "summary_text", text: string}>,
        content?: Array<{type: "reasoning_text", text: string}> | null, encrypted_content?: string | null
    }
    | {type: "compaction", id?: string | null, encrypted_content: string}
    | {type: "item_reference", id: string};

/** A request's `input`: a string is one user message. */
export type InputBody = string | InputItemBody[];
