import {itemNotFound} from "../protocol/errors.js";
import {newId} from "../protocol/ids.js";
import type {Item, MessageContentPart, MessageItem} from "../protocol/wire.js";
import type {ContentPartBody, InputBody, InputItemBody} from "./requestSchemas/itemDefs.js";

/** Looks up an item this server stored before (for `item_reference` input items). */
export type ItemResolver = (id: string) => Item | undefined;

/**
 * Normalises the `input` of a request, already checked by its schema (`schemas/itemDefs.ts`), into the items this
 * server keeps: every item typed, with an id (a client's own id is kept, so replayed output keeps its identity) and
 * content as an array of parts. What is left to refuse is a lookup: an `item_reference` to no stored item.
 */
export function normalizeInput(input: InputBody | null | undefined, resolveItem?: ItemResolver, root = "input"): Item[] {
    if (input == null)
        return [];
    if (typeof input === "string")
        return [{type: "message", id: newId("msg"), status: "completed", role: "user", content: [{type: "input_text", text: input}]}];
    return input.map((raw, index) => normalizeItem(raw, `${root}[${index}]`, resolveItem));
}

function normalizeItem(raw: InputItemBody, param: string, resolveItem?: ItemResolver): Item {
    const status = ("status" in raw ? raw.status : undefined) ?? "completed";
    switch (raw.type) {
        case undefined:
        case null:
        case "message": return normalizeMessage(raw);
        case "function_call":
            return {
                type: "function_call", id: raw.id ?? newId("fc"), call_id: raw.call_id, name: raw.name, ...namespaceOf(raw),
                arguments: raw.arguments, status
            };
        case "function_call_output":
            return {type: "function_call_output", id: raw.id ?? newId("fc"), call_id: raw.call_id, output: raw.output, status};
        case "custom_tool_call":
            return {
                type: "custom_tool_call", id: raw.id ?? newId("ctc"), call_id: raw.call_id, name: raw.name, ...namespaceOf(raw),
                input: raw.input, status
            };
        case "tool_search_call":
            return {
                type: "tool_search_call", id: raw.id ?? newId("tsc"), call_id: raw.call_id ?? null, execution: raw.execution ?? "client",
                arguments: raw.arguments, status
            };
        case "tool_search_output":
            return {
                type: "tool_search_output", id: raw.id ?? newId("tso"), call_id: raw.call_id ?? null, execution: raw.execution ?? "client",
                tools: raw.tools, status
            };
        case "custom_tool_call_output":
            return {type: "custom_tool_call_output", id: raw.id ?? newId("ctc"), call_id: raw.call_id, output: raw.output, status};
        case "reasoning":
            return {
                type: "reasoning",
                id: raw.id ?? newId("rs"),
                summary: (raw.summary ?? []).map((part) => ({type: "summary_text", text: part.text})),
                content: raw.content == null ? null : raw.content.map((part) => ({type: "reasoning_text", text: part.text})),
                encrypted_content: raw.encrypted_content ?? null
            };
        case "compaction":
            return {type: "compaction", id: raw.id ?? newId("cmp"), encrypted_content: raw.encrypted_content};
        case "item_reference": {
            const item = resolveItem?.(raw.id);
            if (item == null)
                throw itemNotFound(`Item '${raw.id}' referenced by '${param}' was not found.`, `${param}.id`);
            return item;
        }
    }
}

function normalizeMessage(raw: Extract<InputItemBody, {role: unknown}>): MessageItem {
    const parts: MessageContentPart[] = typeof raw.content === "string"
        ? [raw.role === "assistant" ? {type: "output_text", text: raw.content, annotations: []} : {type: "input_text", text: raw.content}]
        : raw.content.map(normalizePart);
    const phase = raw.phase == null ? {} : {phase: raw.phase};
    return {type: "message", id: raw.id ?? newId("msg"), status: raw.status ?? "completed", role: raw.role, content: parts, ...phase};
}

/** A call of a function inside a `namespace` tool names it: kept, so that it replays as the function the model saw. */
function namespaceOf(raw: {namespace?: string}): {namespace?: string} {
    return raw.namespace == null ? {} : {namespace: raw.namespace};
}

function normalizePart(part: ContentPartBody): MessageContentPart {
    switch (part.type) {
        case "input_text": return {type: "input_text", text: part.text};
        case "output_text": return {
            type: "output_text", text: part.text, annotations: Array.isArray(part.annotations) ? part.annotations : []
        };
        case "refusal": return {type: "refusal", refusal: part.refusal};
    }
}
