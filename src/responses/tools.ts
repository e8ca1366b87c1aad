import type {ToolMode, ToolSpec} from "../engine/types.js";
import {invalidRequest} from "../protocol/errors.js";
import {isObject} from "../protocol/isObject.js";
import {checkSchemaNesting} from "./outputValidation/jsonSchemaRules.js";
import {checkClientSchema} from "./outputValidation/OutputValidator.js";
import type {FunctionToolWire, Item, ToolChoiceWire, ToolWire} from "../protocol/wire.js";
import type {CustomToolBody, FunctionToolBody, ToolBody, ToolChoiceBody} from "./requestSchemas/toolDefs.js";

/** What a call of a function inside a `namespace` tool carries on the wire: the namespace and the function's own name. */
export type NamespacedName = {namespace: string, name: string};

export type ParsedTools = {
    /** Tools offered to the model (function tools and freeform tools as one-string functions). */
    offered: ToolSpec[],
    /** Echoed in the response object: function tools (freeform ones as functions), `namespace` and `tool_search` as sent. */
    echoed: ToolWire[],
    /** Function tools with `strict: true`: their arguments are validated before publication. */
    strict: Map<string, Record<string, unknown>>,
    /** Offered names of freeform (`custom`) tools. */
    custom: Set<string>,
    /** Offered names of the tools inside `namespace` tools (`<namespace>__<name>`), with what their calls carry. */
    namespaced: Map<string, NamespacedName>,
    /** The offered name of a client-executed `tool_search`: its calls become `tool_search_call` items. */
    toolSearch: string | null,
    /** Hosted tool types that were accepted and not offered. */
    ignored: string[]
};

export type ToolOptions = {
    /** Refuse hosted tool types with 400 instead of ignoring them. */
    strictTools?: boolean
};

/** The name the model sees for a namespace's function: one flat name, unambiguous as long as the pair is. */
export function namespacedToolName(namespace: string, name: string): string {
    return `${namespace}__${name}`;
}

/** The name a client-executed tool search is offered under, as OpenAI's models see it. */
export const toolSearchName = "tool_search";

const defaultSearchParameters = {
    type: "object",
    properties: {query: {type: "string", description: "What to search the deferred tools for."}, limit: {type: "number"}},
    required: ["query"]
};

/** Where a tool comes from: the request's `tools` (echoed, checked strictly) or a `tool_search_output` (loaded). */
type Source = "request" | "loaded";

/**
 * Turns the `tools` the schema admitted (`schemas/toolDefs.ts`) into what the engine is offered. Left to check here:
 * what depends on the other tools (duplicate names), on the server (`--strict-tools`) or on the schema a client
 * sent (whether the grammar builder can walk it). `defer_loading` tools are echoed, not offered: a tool search loads them.
 */
export function parseTools(tools: ToolBody[] | null | undefined, options: ToolOptions = {}): ParsedTools {
    const parsed: ParsedTools = {
        offered: [], echoed: [], strict: new Map(), custom: new Set(), namespaced: new Map(), toolSearch: null, ignored: []
    };
    const context: AddContext = {source: "request", declared: new Set(), strictTools: options.strictTools};
    (tools ?? []).forEach((tool, index) => addTool(parsed, tool, `tools[${index}]`, context));
    return parsed;
}

/**
 * The tools with those that `tool_search_output` items of the history loaded: offered from the turn after the search,
 * never echoed (they are not the request's). A tool already offered is not offered twice.
 */
export function withLoadedTools(tools: ParsedTools, history: readonly Item[]): ParsedTools {
    const outputs = history.filter((item) => item.type === "tool_search_output");
    if (outputs.length === 0)
        return tools;
    const loaded: ParsedTools = {
        ...tools,
        offered: [...tools.offered],
        strict: new Map(tools.strict),
        custom: new Set(tools.custom),
        namespaced: new Map(tools.namespaced)
    };
    const context: AddContext = {source: "loaded", declared: new Set(tools.offered.map((tool) => tool.name))};
    for (const output of outputs)
        output.tools.forEach((tool, index) => addTool(loaded, tool as ToolBody, `tool_search_output.tools[${index}]`, context));
    return loaded;
}

type AddContext = {source: Source, declared: Set<string>, strictTools?: boolean};

function addTool(parsed: ParsedTools, tool: ToolBody, param: string, context: AddContext): void {
    const echo = (wire: ToolWire) => context.source === "request" && parsed.echoed.push(wire);
    switch (tool.type) {
        case "function":
        case "custom": {
            const wire = offerTool(parsed, tool, undefined, undefined, param, context);
            if (wire != null)
                echo(wire);
            return;
        }
        case "namespace": {
            const inner = tool.tools.map((member, index) => {
                const named = {namespace: tool.name, name: member.name};
                return offerTool(parsed, member, named, tool.description, `${param}.tools[${index}]`, context);
            });
            echo({type: "namespace", name: tool.name, description: tool.description ?? "", tools: inner.filter((wire) => wire != null)});
            return;
        }
        case "tool_search":
            if (tool.execution === "client") {
                if (parsed.toolSearch != null)
                    return;
                const parameters = tool.parameters ?? defaultSearchParameters;
                const description = typeof tool.description === "string" ? tool.description : null;
                claimName(toolSearchName, param, context);
                const shown = description ?? "Searches the deferred tools and loads those that match.";
                parsed.offered.push({name: toolSearchName, description: shown, parameters});
                parsed.toolSearch = toolSearchName;
                echo({type: "tool_search", execution: "client", description, parameters});
                return;
            }
            break;
    }
    if (context.strictTools)
        throw invalidRequest(`Tool type '${tool.type}' is a hosted tool this server cannot run.`, `${param}.type`, "unsupported_tool_type");
    if (context.source === "request")
        parsed.ignored.push(tool.type);
}

/**
 * Offers one function or freeform tool under its own name, or `<namespace>__<name>` inside a namespace, and returns its
 * echo; a `defer_loading` tool of the request is echoed only, and a loaded tool already offered is skipped (undefined).
 */
function offerTool(
    parsed: ParsedTools, tool: FunctionToolBody | CustomToolBody, namespaced: NamespacedName | undefined,
    fallbackDescription: string | undefined, param: string, context: AddContext
): FunctionToolWire | undefined {
    const name = namespaced == null ? tool.name : namespacedToolName(namespaced.namespace, namespaced.name);
    if (context.source === "loaded" && context.declared.has(name))
        return undefined;
    claimName(name, param, context);
    const description = typeof tool.description === "string" ? tool.description : undefined;
    const deferred = tool.type === "function" && tool.defer_loading === true && context.source === "request";
    let parameters: Record<string, unknown>;
    let strict = false;
    if (tool.type === "function") {
        parameters = tool.parameters ?? {type: "object", properties: {}};
        strict = tool.strict === true;
        // Strict or not, the grammar builder walks the schema.
        checkSchemaNesting(parameters, `${param}.parameters`);
        // Strict arguments are validated before publication: the schema must be one the grammar enforces.
        if (strict)
            checkClientSchema(parameters, {param: `${param}.parameters`, strict: true});
    } else {
        parameters = {type: "object", properties: {input: {type: "string"}}, required: ["input"], additionalProperties: false};
    }
    if (!deferred) {
        const shown = description ?? fallbackDescription;
        parsed.offered.push({name, description: tool.type === "custom" ? freeformDescription(shown, tool.format) : shown, parameters});
        if (strict)
            parsed.strict.set(name, parameters);
        if (tool.type === "custom")
            parsed.custom.add(name);
        if (namespaced != null)
            parsed.namespaced.set(name, namespaced);
    }
    const deferLoading = deferred ? {defer_loading: true} : {};
    return {type: "function", name: tool.name, description: description ?? null, parameters, strict, ...deferLoading};
}

function claimName(name: string, param: string, context: AddContext): void {
    if (context.declared.has(name))
        throw invalidRequest(`Duplicate tool name '${name}'.`, `${param}.name`);
    context.declared.add(name);
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

/**
 * Narrows the tools by a `tool_choice` the schema admitted: what is left to check are the names it gives. A function
 * inside a `namespace` tool is named by `namespace` and its own `name` (or by its offered name, `<namespace>__<name>`).
 */
export function parseToolChoice(choice: ToolChoiceBody | undefined, tools: ParsedTools): ParsedToolChoice {
    const all = tools.offered;
    const byName = new Map(all.map((tool) => [tool.name, tool]));
    const requireKnown = (named: {name?: unknown, namespace?: unknown}, param: string): string => {
        const inNamespace = typeof named.namespace === "string" && typeof named.name === "string";
        const name = inNamespace ? namespacedToolName(named.namespace as string, named.name as string) : named.name;
        if (typeof name !== "string" || !byName.has(name))
            throw invalidRequest(`Tool choice names '${String(name)}', which is not among the declared function tools.`, param);
        return name;
    };
    const wireName = (name: string): {name: string, namespace?: string} => tools.namespaced.get(name) ?? {name};

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
        const names = choice.tools.map((tool, index) => requireKnown(tool, `tool_choice.tools[${index}].name`));
        return {
            wire: {type: "allowed_tools", mode, tools: names.map((name) => ({type: "function" as const, ...wireName(name)}))},
            mode: mode === "required" ? {type: "required", names} : {type: "auto"},
            offered: names.map((name) => byName.get(name)!)
        };
    }
    const name = requireKnown(choice, "tool_choice.name");
    return {
        wire: {type: "function", ...wireName(name)},
        mode: {type: "required", names: [name]},
        offered: [byName.get(name)!],
        singleCall: true
    };
}
