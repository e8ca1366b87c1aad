import type {ToolMode, ToolSpec} from "../engine/types.js";
import {invalidRequest} from "../protocol/errors.js";
import {isObject} from "../protocol/isObject.js";
import {checkSchemaNesting} from "./jsonSchemaRules.js";
import {checkClientSchema} from "./OutputValidator.js";
import type {FunctionToolWire, ToolChoiceWire} from "../protocol/wire.js";
import type {ToolBody, ToolChoiceBody} from "./schemas/toolDefs.js";

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

/**
 * Turns the `tools` the schema admitted (`schemas/toolDefs.ts`) into what the engine is offered. Left to check here:
 * what depends on the other tools (duplicate names), on the server (`--strict-tools`) or on the schema a client
 * sent (whether the grammar builder can walk it).
 */
export function parseTools(tools: ToolBody[] | null | undefined, options: ToolOptions = {}): ParsedTools {
    const parsed: ParsedTools = {offered: [], echoed: [], strict: new Map(), custom: new Set(), ignored: []};
    const names = new Set<string>();
    (tools ?? []).forEach((tool, index) => {
        const param = `tools[${index}]`;
        if (tool.type !== "function" && tool.type !== "custom") {
            if (options.strictTools)
                throw invalidRequest(`Tool type '${tool.type}' is a hosted tool this server cannot run.`, `${param}.type`, "unsupported_tool_type");
            parsed.ignored.push(tool.type);
            return;
        }
        const name = tool.name;
        if (names.has(name))
            throw invalidRequest(`Duplicate tool name '${name}'.`, `${param}.name`);
        names.add(name);
        const description = typeof tool.description === "string" ? tool.description : undefined;
        if (tool.type === "function") {
            const parameters = tool.parameters ?? {type: "object", properties: {}};
            const strict = tool.strict === true;
            // Strict or not, the grammar builder walks the schema.
            checkSchemaNesting(parameters, `${param}.parameters`);
            // Strict arguments are validated before publication: the schema must be one the grammar enforces.
            if (strict)
                checkClientSchema(parameters, {param: `${param}.parameters`, strict: true});
            parsed.offered.push({name, description, parameters});
            parsed.echoed.push({type: "function", name, description: description ?? null, parameters, strict});
            if (strict)
                parsed.strict.set(name, parameters);
        } else {
            const parameters = {type: "object", properties: {input: {type: "string"}}, required: ["input"], additionalProperties: false};
            parsed.offered.push({name, description: freeformDescription(description, tool.format), parameters});
            parsed.echoed.push({type: "function", name, description: description ?? null, parameters, strict: false});
            parsed.custom.add(name);
        }
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

/** Narrows the tools by a `tool_choice` the schema admitted: what is left to check are the names it gives. */
export function parseToolChoice(choice: ToolChoiceBody | undefined, tools: ParsedTools): ParsedToolChoice {
    const all = tools.offered;
    const byName = new Map(all.map((tool) => [tool.name, tool]));
    const requireKnown = (name: unknown, param: string): string => {
        if (typeof name !== "string" || !byName.has(name))
            throw invalidRequest(`Tool choice names '${String(name)}', which is not among the declared function tools.`, param);
        return name;
    };

    if (choice == null || choice === "auto")
        return {wire: "auto", mode: all.length > 0 ? {type: "auto"} : null, offered: all};
    if (choice === "none")
        return {wire: "none", mode: null, offered: []};
    if (choice === "required") {
        if (all.length === 0)
            throw invalidRequest("tool_choice 'required' needs at least one function tool.", "tool_choice");
        return {wire: "required", mode: {type: "required"}, offered: all};
    }
    if (choice.type === "allowed_tools") {
        const mode = choice.mode ?? "auto";
        const names = choice.tools.map((tool, index) => requireKnown(tool.name, `tool_choice.tools[${index}].name`));
        return {
            wire: {type: "allowed_tools", mode, tools: names.map((name) => ({type: "function" as const, name}))},
            mode: mode === "required" ? {type: "required", names} : {type: "auto"},
            offered: names.map((name) => byName.get(name)!)
        };
    }
    const name = requireKnown(choice.name, "tool_choice.name");
    return {wire: {type: "function", name}, mode: {type: "required", names: [name]}, offered: [byName.get(name)!], singleCall: true};
}
