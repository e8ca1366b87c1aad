import type {FreeformInputDecoder} from "../FreeformInputDecoder.js";
import type {FunctionCallItem, OutputItem} from "../../protocol/wire.js";

/**
 * `form` is the item the call becomes; `toolName` the name it was offered under. `input` decodes a freeform tool's
 * input as it streams; `streamedInput` is what was published of it.
 */
export type OpenCall = {
    kind: "call", item: FunctionCallItem, index: number, form: "function" | "custom" | "search", toolName: string, args: string,
    input?: FreeformInputDecoder, streamedInput: string
};

/** The item a call is published as: a function call, a freeform tool's call with its `input`, or a tool search. */
export function publishedCall(call: OpenCall, input: string): OutputItem {
    const {item} = call;
    switch (call.form) {
        case "function": return structuredClone(item);
        case "custom": {
            const {id, call_id, name, status} = item;
            const namespace = item.namespace == null ? {} : {namespace: item.namespace};
            return {type: "custom_tool_call", id, call_id, name, ...namespace, input, status};
        }
        case "search":
            return {
                type: "tool_search_call", id: item.id, call_id: item.call_id, execution: "client",
                arguments: searchArguments(call.args), status: item.status
            };
    }
}

/** A search's arguments as an object (Codex reads `query` from it); what does not parse (a cut call) stays a string. */
function searchArguments(args: string): unknown {
    if (args === "")
        return {};
    try {
        return JSON.parse(args);
    } catch {
        return args;
    }
}

/** Freeform tools are offered as `{"input": string}` functions; their call carries that string. */
export function customInput(args: string): string {
    try {
        const parsed = JSON.parse(args) as {input?: unknown};
        return typeof parsed.input === "string" ? parsed.input : args;
    } catch {
        return args;
    }
}
