import {always, note} from "./errorNotes.js";
import {clientSchema, namePattern, objectRequired, strictFlag} from "./fields.js";

/** Hosted tools run by OpenAI's platform; this server cannot run them. */
export const hostedToolTypes = [
    "web_search", "web_search_preview", "web_search_2025_08_26", "web_search_preview_2025_03_11", "file_search",
    "code_interpreter", "computer_use_preview", "computer_use", "image_generation", "mcp",
    "local_shell", "shell", "apply_patch", "function_shell"
] as const;

const toolName = {type: "string", pattern: namePattern, ...always(`'{param}' must match ${namePattern}.`)};

/**
 * `$defs` of `tools` and `tool_choice`. Whether a named tool was declared, duplicate names and hosted tools under
 * `--strict-tools` depend on the other tools or on the server: `tools.ts` checks them after the schema.
 */
const functionTool = {
    properties: {
        type: {const: "function"},
        name: toolName,
        parameters: clientSchema(true),
        strict: strictFlag,
        defer_loading: {type: "boolean", ...always("'{param}' must be a boolean.", "invalid_type")}
    },
    required: ["type", "name"]
};
const customTool = {properties: {type: {const: "custom"}, name: toolName}, required: ["type", "name"]};
const unknownToolType = note("Unknown tool type '{value}'.", "unsupported_tool_type");

/** A group of client-executed tools (Codex's sub-agent tools, an MCP server's tools): its calls name the namespace. */
const namespaceTool = {
    properties: {
        type: {const: "namespace"},
        name: toolName,
        description: {type: "string", ...always("'{param}' must be a string.", "invalid_type")},
        tools: {
            type: "array",
            minItems: 1,
            items: {
                type: "object",
                discriminator: {propertyName: "type"},
                oneOf: [functionTool, customTool],
                errors: {type: objectRequired, discriminator: unknownToolType}
            },
            ...always("'{param}' must list at least one function or custom tool.", "invalid_type")
        }
    },
    required: ["type", "name", "tools"]
};

/** Tool search: the client runs it (`execution: "client"`) and loads deferred tools; the server kind is hosted. */
const toolSearchTool = {
    properties: {
        type: {const: "tool_search"},
        execution: {enum: ["client", "server", null], ...always("'{param}' must be 'client' or 'server'.")},
        parameters: clientSchema(true)
    },
    required: ["type"]
};

const tool = {
    type: "object",
    discriminator: {propertyName: "type"},
    oneOf: [functionTool, customTool, namespaceTool, toolSearchTool, {properties: {type: {enum: hostedToolTypes}}, required: ["type"]}],
    errors: {type: objectRequired, discriminator: unknownToolType}
};

const namedChoice = {type: "string", ...always("'{param}' must name a declared function tool.")};

const toolChoice = {
    type: ["string", "object", "null"],
    if: {type: "string"},
    then: {enum: ["auto", "none", "required"], ...always("Invalid tool_choice '{value}': use auto, none, required or an object.")},
    else: {
        if: {type: "object"},
        then: {
            discriminator: {propertyName: "type"},
            oneOf: [
                {properties: {type: {const: "function"}, name: namedChoice, namespace: {type: "string"}}, required: ["type", "name"]},
                {properties: {type: {const: "custom"}, name: namedChoice}, required: ["type", "name"]},
                {
                    properties: {
                        type: {const: "allowed_tools"},
                        mode: {enum: ["auto", "required", null], ...always("tool_choice.mode must be 'auto' or 'required'.")},
                        tools: {
                            type: "array", minItems: 1, items: {type: "object"}, ...always("tool_choice.tools must list at least one tool.")
                        }
                    },
                    required: ["type", "tools"]
                },
                {
                    properties: {type: {enum: hostedToolTypes}}, required: ["type"], not: {},
                    errors: {
                        not: note("tool_choice '{type}' names a hosted tool this server cannot run.", "unsupported_tool_type", {at: "type"})
                    }
                }
            ],
            errors: {discriminator: note("Invalid tool_choice type '{value}'.")}
        }
    },
    errors: {type: note("'{param}' must be a string or an object.", "invalid_type")}
};

export const toolDefs = {tool, toolChoice};

export type HostedToolType = typeof hostedToolTypes[number];

export type FunctionToolBody = {
    type: "function", name: string, description?: unknown, parameters?: Record<string, unknown> | null, strict?: boolean | null,
    defer_loading?: boolean
};
export type CustomToolBody = {type: "custom", name: string, description?: unknown, format?: unknown};

export type ToolBody =
    | FunctionToolBody
    | CustomToolBody
    | {type: "namespace", name: string, description?: string, tools: Array<FunctionToolBody | CustomToolBody>}
    | {type: "tool_search", execution?: "client" | "server" | null, description?: unknown, parameters?: Record<string, unknown> | null}
    | {type: HostedToolType};

export type ToolChoiceBody =
    | "auto" | "none" | "required" | null
    | {type: "function" | "custom", name: string, namespace?: string}
    | {type: "allowed_tools", mode?: "auto" | "required" | null, tools: Array<{name?: unknown, namespace?: unknown}>};
