import type {ChatTurn, ModelPart} from "../engine/types.js";
import {invalidRequest} from "../protocol/errors.js";
import type {Item, MessageItem, ToolSearchOutputItem} from "../protocol/wire.js";
import {namespacedToolName, toolSearchName} from "./tools.js";

export type TranscriptOptions = {
    /** System text for this request only (`instructions`); never inherited through a chain. */
    instructions?: string | null,
    /** Reads the thought text back from an opaque `encrypted_content` token; undefined if it is not ours. */
    readReasoningToken?: (token: string) => string | undefined
};

/**
 * Renders a history of Response items as chat turns for the engine.
 * Calls and their results are paired by `call_id` (results may arrive in any order within their group);
 * a call without a result, or a result without its call, is refused before any generation.
 */
export function itemsToTurns(items: readonly Item[], options: TranscriptOptions = {}): ChatTurn[] {
    const turns: ChatTurn[] = [];
    if (options.instructions != null && options.instructions !== "")
        turns.push({role: "system", text: options.instructions});

    const results = collectResults(items);
    const usedResults = new Set<string>();

    const modelTurn = (): ModelPart[] => {
        const last = turns.at(-1);
        if (last?.role === "model")
            return last.parts;
        const parts: ModelPart[] = [];
        turns.push({role: "model", parts});
        return parts;
    };

    items.forEach((item, index) => {
        switch (item.type) {
            case "message":
                if (item.role === "assistant")
                    modelTurn().push({type: "text", text: messageText(item)});
                else if (item.role === "user")
                    turns.push({role: "user", text: messageText(item)});
                else
                    turns.push({role: "system", text: messageText(item)});
                break;
            case "reasoning": {
                const text = reasoningText(item, options.readReasoningToken);
                if (text != null)
                    modelTurn().push({type: "thought", text});
                break;
            }
            case "function_call":
            case "custom_tool_call": {
                const result = results.get(item.call_id);
                if (result == null)
                    throw invalidRequest(
                        `No tool output found for call '${item.call_id}' (input[${index}]): send a ${item.type}_output `
                            + `item with this call_id.`,
                        "input",
                        "missing_tool_output"
                    );
                usedResults.add(item.call_id);
                const args = item.type === "function_call" ? item.arguments : JSON.stringify({input: item.input});
                // A namespace's function renders under the name the model was offered (see tools.ts).
                const name = item.namespace == null ? item.name : namespacedToolName(item.namespace, item.name);
                modelTurn().push({type: "call", name, arguments: args, result});
                break;
            }
            case "tool_search_call": {
                // A search without a call_id (run by OpenAI's servers) cannot be paired: its loaded tools still count.
                if (item.call_id == null)
                    break;
                const result = results.get(item.call_id);
                if (result == null)
                    throw invalidRequest(
                        `No tool output found for search '${item.call_id}' (input[${index}]): send a tool_search_output with this call_id.`,
                        "input",
                        "missing_tool_output"
                    );
                usedResults.add(item.call_id);
                const args = typeof item.arguments === "string" ? item.arguments : JSON.stringify(item.arguments ?? {});
                modelTurn().push({type: "call", name: toolSearchName, arguments: args, result});
                break;
            }
            case "function_call_output":
            case "custom_tool_call_output":
            case "tool_search_output":
                break;
            case "compaction":
                // Compaction items are expanded before rendering (see compaction.ts); reaching here means an unknown token.
                throw invalidRequest(`input[${index}] is a compaction item this server cannot read.`, `input[${index}].encrypted_content`,
                    "invalid_encrypted_content");
        }
    });

    for (const item of items)
        if (isToolOutput(item) && item.call_id != null && !usedResults.has(item.call_id))
            throw invalidRequest(`No tool call found for output with call_id '${item.call_id}'.`, "input", "missing_tool_call");

    return turns;
}

/** A tool's result item, paired with its call by `call_id`. */
export function isToolOutput(item: Item): item is Extract<Item, {type: `${"function_call" | "custom_tool_call" | "tool_search"}_output`}> {
    return item.type === "function_call_output" || item.type === "custom_tool_call_output" || item.type === "tool_search_output";
}

function collectResults(items: readonly Item[]): Map<string, string> {
    const results = new Map<string, string>();
    for (const item of items)
        if (item.type === "tool_search_output") {
            if (item.call_id != null)
                results.set(item.call_id, searchResultText(item));
        } else if (isToolOutput(item))
            results.set(item.call_id, typeof item.output === "string" ? item.output : partsText(item.output));
    return results;
}

/** What the model reads back of a search: the names it can call from now on (the tools themselves are offered). */
function searchResultText(item: ToolSearchOutputItem): string {
    const names = item.tools.flatMap((tool) => {
        const {type, name, tools} = tool as {type?: string, name?: string, tools?: Array<{name?: string}>};
        if (type === "namespace" && name != null)
            return (tools ?? []).map((member) => namespacedToolName(name, String(member.name)));
        return type === "function" || type === "custom" ? [String(name)] : [];
    });
    return names.length === 0 ? "No tools found." : `Loaded tools: ${names.join(", ")}`;
}

export function messageText(item: MessageItem): string {
    return item.content.map((part) => (part.type === "refusal" ? part.refusal : part.text)).join("");
}

function partsText(parts: unknown[]): string {
    return parts.map((part) => (part as {text?: string}).text ?? "").join("");
}

function reasoningText(item: Extract<Item, {type: "reasoning"}>, readToken?: (token: string) => string | undefined): string | undefined {
    if (item.content != null && item.content.length > 0)
        return item.content.map((part) => part.text).join("");
    if (item.encrypted_content != null)
        return readToken?.(item.encrypted_content);
    return undefined;
}
