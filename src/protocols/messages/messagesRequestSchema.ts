import {always, note} from "../../responses/requestSchemas/errorNotes.js";
import {clientSchema, namePattern, objectRequired} from "../../responses/requestSchemas/fields.js";
import {maxTools} from "../../responses/requestSchemas/createRequestSchema.js";
import type {KeepAliveBody} from "../../responses/requestSchemas/defs.js";

/**
 * JSON Schema (draft 2020-12) of Anthropic's `POST /v1/messages` body, which `POST /v1/messages/count_tokens` takes
 * too. What the server cannot honour is refused by name, never dropped: server tools, `container`, `mcp_servers`, image
 * and document blocks. Fields Anthropic's clients send by default and that change nothing here (`context_management`,
 * `output_config`, `cache_control`, `metadata`, `service_tier`) are accepted. Unknown top-level fields are refused, as
 * Anthropic refuses them.
 */

const anyString = {type: "string", ...always("'{param}' must be a string.", "invalid_type")};
const nonEmptyString = {type: "string", minLength: 1, ...always("'{param}' must be a non-empty string.")};
/** Prompt caching is automatic here (every prompt's prefix is reused): a marker changes nothing. */
const cacheControl = {type: ["object", "null"]};

/** node-llama-cpp 3.21.1 reads text only: media blocks are refused by name. */
const refusedBlock = (types: string[], why: string) => ({
    properties: {type: {enum: types}}, required: ["type"], not: {}, errors: {not: note(why, "unsupported_content_type", {at: "type"})}
});
const mediaRefused = refusedBlock(["image", "document", "search_result"],
    "'{type}' blocks are not supported: the local engine (node-llama-cpp) has no vision or file input. Send text only.");
const serverToolBlocksRefused = refusedBlock([
    "server_tool_use", "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result", "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result", "mcp_tool_use", "mcp_tool_result", "container_upload"
], "'{type}' blocks belong to Anthropic's server tools, which this server does not run.");

function tagged(type: string, properties: Record<string, unknown> = {}, required: string[] = []) {
    return {type: "object", properties: {type: {const: type}, cache_control: cacheControl, ...properties}, required: ["type", ...required]};
}

const textBlock = tagged("text", {text: anyString, citations: {}}, ["text"]);

const toolResultContent = {
    type: ["string", "array"],
    items: {type: "object", discriminator: {propertyName: "type"}, oneOf: [textBlock, mediaRefused],
        errors: {type: objectRequired, discriminator: note("Unsupported block type '{value}' in '{item}'.", "unsupported_value")}},
    errors: {type: note("'{param}' must be a string or an array of text blocks.", "invalid_type")}
};

const contentBlock = {
    type: "object",
    discriminator: {propertyName: "type"},
    oneOf: [
        textBlock,
        tagged("tool_use", {
            id: nonEmptyString, name: nonEmptyString, input: {type: "object", ...always("'{param}' must be an object.", "invalid_type")}
        }, ["id", "name", "input"]),
        tagged("tool_result", {tool_use_id: nonEmptyString, content: toolResultContent, is_error: {type: "boolean"}}, ["tool_use_id"]),
        tagged("thinking", {thinking: anyString, signature: {type: "string"}}, ["thinking"]),
        tagged("redacted_thinking", {data: {type: "string"}}),
        mediaRefused,
        serverToolBlocksRefused
    ],
    errors: {type: objectRequired, discriminator: note("Unsupported content block type '{value}' in '{item}'.", "unsupported_value")}
};

const message = {
    type: "object",
    required: ["role", "content"],
    properties: {
        // Claude Code sends its environment as a `system` message among the turns.
        role: {enum: ["user", "assistant", "system"], ...always("'{param}' must be 'user' or 'assistant'.", "invalid_value")},
        content: {
            type: ["string", "array"], items: contentBlock,
            errors: {type: note("'{param}' must be a string or an array of content blocks.", "invalid_type")}
        }
    },
    errors: {type: objectRequired}
};

const tool = {
    type: "object",
    required: ["name"],
    // A typed tool (`web_search_20250305`, `bash_20250124`, `code_execution_…`) is one of Anthropic's own: refused by name.
    if: {required: ["type"], properties: {type: {not: {enum: ["custom", null]}}}},
    then: {not: {}, errors: {not: note(
        "Tool type '{type}' is an Anthropic server or built-in tool, which this server does not run: "
            + "declare a custom tool with an 'input_schema'.",
        "unsupported_tool_type",
        {at: "type"}
    )}},
    else: {required: ["name", "input_schema"]},
    properties: {
        type: {},
        name: {type: "string", pattern: namePattern, ...always("'{param}' must be 1 to 64 letters, digits, '_' or '-'.")},
        description: {type: "string"},
        input_schema: clientSchema(false),
        cache_control: cacheControl,
        // Deferred loading is Anthropic's server-side tool search: here every declared tool is offered.
        defer_loading: {type: "boolean"},
        strict: {type: "boolean"},
        input_examples: {type: "array"}
    },
    errors: {type: objectRequired}
};

const toolChoice = {
    type: "object",
    required: ["type"],
    properties: {
        type: {enum: ["auto", "any", "tool", "none"], ...always("'{param}' must be one of auto, any, tool, none.")},
        name: nonEmptyString,
        disable_parallel_tool_use: {type: "boolean"}
    },
    if: {properties: {type: {const: "tool"}}},
    then: {required: ["name"]},
    errors: {type: objectRequired}
};

const thinking = {
    type: "object",
    required: ["type"],
    properties: {
        type: {
            enum: ["enabled", "adaptive", "between_tools", "disabled"],
            ...always("'{param}' must be one of enabled, adaptive, between_tools, disabled.")
        },
        budget_tokens: {type: "integer", minimum: 1, maximum: 100_000_000},
        display: {type: "string"}
    },
    if: {properties: {type: {const: "enabled"}}},
    then: {required: ["budget_tokens"]},
    errors: {type: objectRequired}
};

/** `effort` sets the reasoning effort of adaptive thinking; `format` is structured output (a JSON schema). */
const outputConfig = {
    type: ["object", "null"],
    properties: {
        effort: {
            enum: ["low", "medium", "high", "xhigh", "max", null],
            ...always("'{param}' must be one of low, medium, high, xhigh, max.")
        },
        format: {
            type: ["object", "null"],
            required: ["type", "schema"],
            properties: {type: {const: "json_schema", ...always("'{param}' must be 'json_schema'.")}, schema: clientSchema(false)},
            errors: {type: objectRequired}
        }
    },
    errors: {type: objectRequired}
};

const refused = (why: string) => ({not: {}, ...always(why, "unsupported_parameter")});

export const messagesRequestSchema = {
    $id: "messagesRequest",
    type: "object",
    additionalProperties: false,
    required: ["model", "messages", "max_tokens"],
    properties: {
        model: {type: "string", minLength: 1, maxLength: 256, ...always("'{param}' must be a non-empty string.")},
        messages: {type: "array", items: message, errors: {type: note("'{param}' must be an array of messages.", "invalid_type")}},
        max_tokens: {type: "integer", minimum: 1, maximum: 100_000_000, ...always("'{param}' must be an integer of at least 1.")},
        system: {
            type: ["string", "array"], items: textBlock,
            errors: {type: note("'{param}' must be a string or an array of text blocks.", "invalid_type")}
        },
        stop_sequences: {
            type: "array", maxItems: 16, items: {type: "string", minLength: 1},
            ...always("'{param}' must be an array of up to 16 non-empty strings.")
        },
        stream: {type: "boolean"},
        temperature: {type: "number", minimum: 0, maximum: 1, ...always("'{param}' must be a number from 0 to 1.")},
        top_p: {type: "number", minimum: 0, maximum: 1, ...always("'{param}' must be a number from 0 to 1.")},
        top_k: {type: "integer", minimum: 0},
        tools: {type: "array", maxItems: maxTools, items: tool, errors: {maxItems: note(`'{param}' may hold at most ${maxTools} tools.`)}},
        tool_choice: toolChoice,
        thinking,
        metadata: {type: "object", properties: {user_id: {type: ["string", "null"]}}},
        service_tier: {enum: ["auto", "standard_only"]},
        context_management: {type: ["object", "null"]},
        output_config: outputConfig,
        // Accepted, with nothing to change here: one cache (automatic), one region, one speed, no diagnostics to report.
        cache_control: cacheControl,
        diagnostics: {type: ["object", "null"]},
        inference_geo: {type: ["string", "null"]},
        speed: {enum: ["standard", "fast", null]},
        // Claude Code's "auto" permission mode asks Anthropic's servers to classify dangerous tool use; no classifier
        // runs here, as none runs after Claude Code drops the field on the 400 it used to get (one round trip a turn).
        safeguards: {type: ["array", "null"]},
        // Ollama's, not Anthropic's: how long the model library keeps the model loaded (`parseKeepAlive`).
        keep_alive: {$ref: "defs#/$defs/keepAlive"},
        container: refused("'container' is not supported: this server runs no code-execution container."),
        mcp_servers: refused("'mcp_servers' is not supported: this server connects to no MCP server; declare the tools instead.")
    },
    errors: {required: note("Missing required parameter: '{param}'.", "missing_required_parameter")}
};

type TextBlockBody = {type: "text", text: string};
export type ToolResultBody = {type: "tool_result", tool_use_id: string, content?: string | TextBlockBody[], is_error?: boolean};
export type ContentBlockBody =
    | TextBlockBody
    | {type: "tool_use", id: string, name: string, input: Record<string, unknown>}
    | ToolResultBody
    | {type: "thinking", thinking: string, signature?: string}
    | {type: "redacted_thinking", data?: string};
export type MessageBody = {role: "user" | "assistant" | "system", content: string | ContentBlockBody[]};
export type MessagesToolBody = {type?: "custom" | null, name: string, description?: string, input_schema: Record<string, unknown>};
/** `name` is required with `tool` (the schema's if/then). */
export type MessagesToolChoiceBody = {disable_parallel_tool_use?: boolean}
    & ({type: "tool", name: string} | {type: "auto" | "any" | "none", name?: string});
export type ThinkingBody = {type: "enabled" | "adaptive" | "between_tools" | "disabled", budget_tokens?: number, display?: string};
export type OutputConfigBody = {
    effort?: "low" | "medium" | "high" | "xhigh" | "max" | null,
    format?: {type: "json_schema", schema: Record<string, unknown>} | null
};

/** The `POST /v1/messages` body the schema admits. */
export type MessagesRequestBody = {
    model: string,
    messages: MessageBody[],
    max_tokens: number,
    system?: string | TextBlockBody[],
    stop_sequences?: string[],
    stream?: boolean,
    temperature?: number,
    top_p?: number,
    top_k?: number,
    tools?: MessagesToolBody[],
    tool_choice?: MessagesToolChoiceBody,
    thinking?: ThinkingBody,
    metadata?: Record<string, unknown>,
    service_tier?: string,
    context_management?: unknown,
    output_config?: OutputConfigBody | null,
    cache_control?: unknown,
    diagnostics?: unknown,
    inference_geo?: unknown,
    speed?: unknown,
    keep_alive?: KeepAliveBody,
    container?: unknown,
    mcp_servers?: unknown
};
