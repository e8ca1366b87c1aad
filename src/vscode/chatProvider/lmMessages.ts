import type {LmMessage, LmPart, LmRequestOptions, LmResultPart} from "../../protocols/lm/lmRequest.js";
import {
    lmRoles, lmToolModes, type LanguageModelChatRequestMessage, type LmPartClasses, type ProvideLanguageModelChatResponseOptions
} from "./lmApi.js";

/**
 * The editor's messages and options as the plain data `LanguageModelChatService` maps: parts are told apart by the
 * editor's own classes (`instanceof`), since their shapes overlap (a thinking part also has a `value`). A part of a
 * class this server does not read (thinking, another provider's) is left out.
 */
export function toLmMessage(message: LanguageModelChatRequestMessage, classes: LmPartClasses): LmMessage {
    const role = message.role === lmRoles.assistant ? "assistant" : message.role === lmRoles.system ? "system" : "user";
    return {role, parts: message.content.flatMap((part) => toPart(part, classes))};
}

export function toLmOptions(options: ProvideLanguageModelChatResponseOptions): LmRequestOptions {
    return {
        tools: (options.tools ?? []).map((tool) => ({
            name: tool.name, description: tool.description, ...(tool.inputSchema == null ? {} : {inputSchema: tool.inputSchema})
        })),
        toolMode: options.toolMode === lmToolModes.required ? "required" : "auto",
        modelOptions: options.modelOptions
    };
}

type TextPart = {value: string};
type ToolCallPart = {callId: string, name: string, input: unknown};
type ToolResultPart = {callId: string, content: readonly unknown[]};
type DataPart = {mimeType: string, data: Uint8Array};

function toPart(part: unknown, classes: LmPartClasses): LmPart[] {
    if (part instanceof classes.TextPart)
        return [{type: "text", text: (part as TextPart).value}];
    if (part instanceof classes.ToolCallPart) {
        const call = part as ToolCallPart;
        return [{type: "toolCall", callId: call.callId, name: call.name, input: call.input}];
    }
    if (part instanceof classes.ToolResultPart) {
        const result = part as ToolResultPart;
        return [{type: "toolResult", callId: result.callId, content: result.content.map((item) => toResultPart(item, classes))}];
    }
    if (classes.DataPart != null && part instanceof classes.DataPart) {
        const data = part as DataPart;
        return [{type: "data", mimeType: data.mimeType, data: data.data}];
    }
    return [];
}

function toResultPart(part: unknown, classes: LmPartClasses): LmResultPart {
    if (part instanceof classes.TextPart)
        return {type: "text", text: (part as TextPart).value};
    if (classes.DataPart != null && part instanceof classes.DataPart) {
        const data = part as DataPart;
        return {type: "data", mimeType: data.mimeType, data: data.data};
    }
    // A prompt-tsx element or any other value: read as JSON.
    const tsx = classes.PromptTsxPart != null && part instanceof classes.PromptTsxPart;
    return {type: "value", value: tsx ? (part as {value: unknown}).value : part};
}
