import type {ToolMode, ToolSpec} from "../engine/types.js";
import {ApiError, invalidRequest} from "../protocol/errors.js";
import {isObject} from "../protocol/isObject.js";
import {checkSchemaNesting} from "./jsonSchemaRules.js";
import {checkClientSchema} from "./OutputValidator.js";
import type {FunctionToolWire, ToolChoiceWire} from "../protocol/wire.js";

/** Hosted tools run by OpenAI's platform; this server cannot run them. */
export const hostedToolTypes = new Set([
    "web_search", "web_search_preview", "web_search_2025_08_26", "web_search_preview_2025_03_11", "file_search",
    "code_interpreter", "computer_use_preview", "computer_use", "image_generation", "mcp", "tool_search", "namespace",
    "local_shell", "shell", "apply_patch", "function_shell"
]);

export type ParsedTools = {
    /** Tools offered to the model (function tools and freeform tools as one-string functions). */
    offered: ToolSpec[],
    /** Echoed in the response object as function tools, as the Open Responses schema wants them. */
    echoed: FunctionToolWire[],
    /** Function tools with `strict: true`: their arguments are validated before publication. */
    strict: Map<string, Record<string, unknown>>,
    /** Names of freeform (`custom`) tools. */
    custom: Set<string>,
    /** Hosted tool types that were accepted and not offered. */
    ignored: string[]
};

export type ToolOptions = {
    /** Refuse hosted tool types with 400 instead of ignoring them. */
    strictTools?: boolean
};

const namePattern = /^[a-zA-Z0-9_-]{1,64}$/;

export function parseTools(raw: unknown, options: ToolOptions = {}): ParsedTools {
    const parsed: ParsedTools = {offered: [], echoed: [], strict: new Map(), custom: new Set(), ignored: []};
    if (raw == null)
        return parsed;
    const tools = raw as Record<string, unknown>[];
    const names = new Set<string>();
    tools.forEach((tool, index) => {
        const param = `tools[${index}]`;
        const type = String(tool.type);
        if (type === "function" || type === "custom") {
            const name = tool.name;
            if (typeof name !== "string" || !namePattern.test(name))
                throw invalidRequest(`'${param}.name' must match ${namePattern.source}.`, `${param}.name`);
            if (names.has(name))
                throw invalidRequest(`Duplicate tool name '${name}'.`, `${param}.name`);
            names.add(name);
            const description = typeof tool.description === "string" ? tool.description : undefined;
            if (type === "function") {
                const parameters = tool.parameters == null ? {type: "object", properties: {}} : tool.parameters;
                if (!isObject(parameters))
                    throw invalidRequest(`'${param}.parameters' must be a JSON schema object.`, `${param}.parameters`, "invalid_type");
                // Strict or not, the grammar builder walks the schema.
                checkSchemaNesting(parameters, `${param}.parameters`);
                if (tool.strict != null && typeof tool.strict !== "boolean")
                    throw invalidRequest(`'${param}.strict' must be a boolean.`, `${param}.strict`, "invalid_type");
                // Strict arguments are validated before publication: the schema must be one the grammar enforces.
                if (tool.strict === true)
                    checkClientSchema(parameters, {param: `${param}.parameters`, strict: true});
                parsed.offered.push({name, description, parameters});
                parsed.echoed.push({type: "function", name, description: description ?? null, parameters, strict: tool.strict === true});
                if (tool.strict === true)
                    parsed.strict.set(name, parameters);
            } else {
                const parameters = {type: "object", properties: {input: {type: "string"}}, required: ["input"], additionalProperties: false};
                parsed.offered.push({name, description: freeformDescription(description, tool.format), parameters});
                parsed.echoed.push({type: "function", name, description: description ?? null, parameters, strict: false});
                parsed.custom.add(name);
            }
            return;
        }
        if (hostedToolTypes.has(type)) {
            if (options.strictTools)
                throw invalidRequest(`Tool type '${type}' is a hosted tool this server cannot run.`, `${param}.type`, "unsupported_tool_type");
            parsed.ignored.push(type);
            return;
        }
        throw invalidRequest(`Unknown tool type '${type}'.`, `${param}.type`, "unsupported_tool_type");
    });
    return parsed;
}

function freeformDescription(description: string | undefined, format: unknown): string {
    const base = description ?? "A freeform tool.";
    if (isObject(format) && format.type === "grammar" && typeof format.definition === "string")
        return `${base}\nThe 'input' string must follow this ${String(format.syntax ?? "")} grammar:\n${format.definition}`;
    return base;
}

export type ParsedToolChoice = {
    wire: ToolChoiceWire,
    /** Null when no tool may be called (`none`, or no tools). */
    mode: ToolMode | null,
    /** The tools offered after `tool_choice` narrowed them. */
    offered: ToolSpec[],
    /**
     * A named tool choice forces exactly one call of that tool, as OpenAI does for a forced function, whatever
     * `parallel_tool_calls` says; `required` may make several when parallel calls are allowed.
     */
    singleCall?: boolean
};

export function parseToolChoice(raw: unknown, tools: ParsedTools): ParsedToolChoice {
    const all = tools.offered;
    const byName = new Map(all.map((tool) => [tool.name, tool]));
    const requireKnown = (name: unknown, param: string): string => {
        if (typeof name !== "string" || !byName.has(name))
            throw invalidRequest(`Tool choice names '${String(name)}', which is not among the declared function tools.`, param);
        return name;
    };

    if (raw == null || raw === "auto")
        return {wire: "auto", mode: all.length > 0 ? {type: "auto"} : null, offered: all};
    if (raw === "none")
        return {wire: "none", mode: null, offered: []};
    if (raw === "required") {
        if (all.length === 0)
            throw invalidRequest("tool_choice 'required' needs at least one function tool.", "tool_choice");
        return {wire: "required", mode: {type: "required"}, offered: all};
    }
    if (typeof raw === "string")
        throw invalidRequest(`Invalid tool_choice '${raw}': use auto, none, required or an object.`, "tool_choice");

    const choice = raw as Record<string, unknown>;
    if (choice.type === "function" || choice.type === "custom") {
        const name = requireKnown(choice.name, "tool_choice.name");
        return {wire: {type: "function", name}, mode: {type: "required", names: [name]}, offered: [byName.get(name)!], singleCall: true};
    }
    if (choice.type === "allowed_tools") {
        const mode = choice.mode ?? "auto";
        if (mode !== "auto" && mode !== "required")
            throw invalidRequest("tool_choice.mode must be 'auto' or 'required'.", "tool_choice.mode");
        if (!Array.isArray(choice.tools) || choice.tools.length === 0)
            throw invalidRequest("tool_choice.tools must list at least one tool.", "tool_choice.tools");
        const names = choice.tools.map((tool, index) => requireKnown(isObject(tool) ? tool.name : undefined, `tool_choice.tools[${index}].name`));
        return {
            wire: {type: "allowed_tools", mode, tools: names.map((name) => ({type: "function" as const, name}))},
            mode: mode === "required" ? {type: "required", names} : {type: "auto"},
            offered: names.map((name) => byName.get(name)!)
        };
    }
    if (hostedToolTypes.has(String(choice.type)))
        throw new ApiError(400, `tool_choice '${String(choice.type)}' names a hosted tool this server cannot run.`, {param: "tool_choice.type", code: "unsupported_tool_type"});
    throw invalidRequest(`Invalid tool_choice type '${String(choice.type)}'.`, "tool_choice.type");
}
