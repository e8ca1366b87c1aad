import type {ChatHistoryItem, ChatModelFunctions, ChatModelResponse} from "node-llama-cpp";
import {toGrammarSchema} from "./grammarSchema.js";
import type {ChatTurn, ToolSpec} from "../../types.js";

/**
 * Renders engine turns as node-llama-cpp chat history. The history always ends with a model turn:
 * an empty one to answer the last user turn, or the open one being continued (after tool results).
 */
export function toChatHistory(turns: readonly ChatTurn[]): ChatHistoryItem[] {
    const history: ChatHistoryItem[] = turns.map((turn): ChatHistoryItem => {
        switch (turn.role) {
            case "system": return {type: "system", text: turn.text};
            case "user": return {type: "user", text: turn.text};
            case "model": return {type: "model", response: turn.parts.map(toResponsePart)};
        }
    });

    const last = history.at(-1);
    const continuesToolTurn = last?.type === "model" && last.response.at(-1) != null && typeof last.response.at(-1) === "object"
        && (last.response.at(-1) as {type: string}).type === "functionCall";
    if (last?.type !== "model" || !continuesToolTurn)
        history.push({type: "model", response: []});

    return history;
}

function toResponsePart(part: Extract<ChatTurn, {role: "model"}>["parts"][number]): ChatModelResponse["response"][number] {
    switch (part.type) {
        case "text": return part.text;
        case "thought": return {type: "segment", segmentType: "thought", text: part.text, ended: true};
        case "call": return {type: "functionCall", name: part.name, params: parseArguments(part.arguments), result: part.result};
    }
}

function parseArguments(text: string): unknown {
    try {
        return JSON.parse(text);
    } catch {
        return text;
    }
}

/** Tools as node-llama-cpp functions (no handlers: the client runs its tools). */
export function toChatModelFunctions(tools: readonly ToolSpec[]): ChatModelFunctions | undefined {
    if (tools.length === 0)
        return undefined;
    return Object.fromEntries(tools.map((tool) => [tool.name, {
        description: tool.description,
        params: (tool.parameters == null ? undefined : toGrammarSchema(tool.parameters)) as ChatModelFunctions[string]["params"]
    }]));
}
