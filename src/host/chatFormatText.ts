import type {ModelInfo} from "../engine/types.js";

type ChatFormat = NonNullable<ModelInfo["chatFormat"]>;

/**
 * The chat format in words, for the load log line, the sidebar and the status tooltip:
 * `JinjaTemplate+kimi-k2 (family kimi-k2, tool calls understood)`.
 */
export function describeChatFormat(format: ChatFormat): string {
    const family = format.family == null ? "no known family" : `family ${format.family}`;
    return `${format.wrapper} (${family}, tool calls ${format.toolCallsUnderstood ? "understood" : "only when forced"})`;
}

/**
 * One line for a model whose own tool-call syntax is not understood: its calls are parsed in node-llama-cpp's generic
 * `||call:` syntax, which no model writes, so a call comes only when the request forces one. Null when understood.
 */
export function chatFormatWarning(modelId: string, format: ChatFormat): string | null {
    if (format.toolCallsUnderstood)
        return null;
    return `${modelId}'s own tool-call syntax is not understood by ${format.wrapper}: it calls tools only when a request forces one `
        + "(tool_choice required or named); choose its format with --chat-wrapper NAME or --chat-template FILE (editor: "
        + "localResponses.model.chatWrapper / model.chatTemplate; see docs/models.md)";
}
