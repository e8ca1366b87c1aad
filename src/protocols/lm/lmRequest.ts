import {unsupported} from "../../protocol/errors.js";
import type {CreateRequestBody} from "../../responses/requestSchemas/createRequestSchema.js";
import type {InputItemBody} from "../../responses/requestSchemas/itemDefs.js";
import type {FunctionToolBody} from "../../responses/requestSchemas/toolDefs.js";

/**
 * A request of VS Code's Language Model Chat Provider API (`vscode.lm`) as plain data: the editor's part classes are
 * converted in `src/vscode/chatProvider/`, so this mapping is tested without an editor.
 */

/** A part of a tool's result: text, bytes with their MIME type, or any other value (a prompt-tsx element). */
export type LmResultPart =
    | {type: "text", text: string}
    | {type: "data", mimeType: string, data: Uint8Array}
    | {type: "value", value: unknown};

/** One part of a message, in the order the editor sent it. */
export type LmPart =
    | {type: "text", text: string}
    | {type: "toolCall", callId: string, name: string, input: unknown}
    | {type: "toolResult", callId: string, content: LmResultPart[]}
    | {type: "data", mimeType: string, data: Uint8Array};

export type LmMessage = {role: "user" | "assistant" | "system", parts: LmPart[]};

export type LmTool = {name: string, description?: string, inputSchema?: object};

export type LmRequestOptions = {
    tools?: readonly LmTool[],
    /** `Required`: the model must call one of the tools (forced by grammar, as `tool_choice: "required"` is). */
    toolMode?: "auto" | "required",
    /** The caller's free-form options; the sampling ones this server knows are mapped (`samplingOf`), others ignored. */
    modelOptions?: Readonly<Record<string, unknown>>
};

/** Each `modelOptions` key this server reads, and the create body field it becomes (the body's schema checks the value). */
const modelOptionFields: Record<string, string> = {
    temperature: "temperature",
    top_p: "top_p",
    topP: "top_p",
    max_tokens: "max_output_tokens",
    maxTokens: "max_output_tokens",
    max_output_tokens: "max_output_tokens",
    maxOutputTokens: "max_output_tokens",
    seed: "seed"
};

/**
 * Maps a `vscode.lm` request onto a stateless Responses create body (`store: false`), so the editor's chat runs on the
 * one generation path (prepare → admit → run) with the engine, queue, limits and prompt-prefix reuse of every HTTP
 * request, and its turns are rendered by the domain's one items → chat turns mapping: text parts become messages,
 * tool calls `function_call` items, tool results `function_call_output` items, in the order they came.
 */
export function toCreateBody(model: string, messages: readonly LmMessage[], options: LmRequestOptions = {}): Record<string, unknown> {
    const tools = (options.tools ?? []).map(toFunctionTool);
    const body: CreateRequestBody = {
        model,
        input: messages.flatMap((message, index) => toItems(message, `messages[${index}]`)),
        store: false,
        stream: true,
        ...(tools.length === 0 ? {} : {tools, tool_choice: options.toolMode === "required" ? "required" : "auto"})
    };
    return {...body, ...samplingOf(options.modelOptions)};
}

/** The sampling fields `modelOptions` sets (the first spelling given wins when two name one field). */
function samplingOf(modelOptions: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(modelOptions ?? {})) {
        const field = modelOptionFields[key];
        if (field != null && value != null && !(field in fields))
            fields[field] = value;
    }
    return fields;
}

function toFunctionTool(tool: LmTool): FunctionToolBody {
    return {
        type: "function",
        name: tool.name,
        ...(tool.description == null || tool.description === "" ? {} : {description: tool.description}),
        ...(tool.inputSchema == null ? {} : {parameters: tool.inputSchema as Record<string, unknown>}),
        strict: false
    };
}

/** One message as input items: consecutive text parts are one message item; a call or a result stands alone. */
function toItems(message: LmMessage, param: string): InputItemBody[] {
    const items: InputItemBody[] = [];
    let text: string[] = [];
    const flushText = (): void => {
        if (text.length > 0)
            items.push(messageItem(message.role, text.join("")));
        text = [];
    };
    message.parts.forEach((part, index) => {
        const where = `${param}.content[${index}]`;
        switch (part.type) {
            case "text":
                text.push(part.text);
                return;
            case "data": {
                const decoded = dataText(part.mimeType, part.data, where);
                if (decoded != null)
                    text.push(decoded);
                return;
            }
            case "toolCall":
                flushText();
                items.push({type: "function_call", call_id: part.callId, name: part.name, arguments: JSON.stringify(part.input ?? {})});
                return;
            case "toolResult":
                flushText();
                items.push({type: "function_call_output", call_id: part.callId, output: resultText(part.content, where)});
                return;
        }
    });
    flushText();
    return items;
}

function messageItem(role: LmMessage["role"], text: string): InputItemBody {
    return role === "assistant"
        ? {type: "message", role, content: [{type: "output_text", text}]}
        : {type: "message", role, content: [{type: "input_text", text}]};
}

/** A tool result's parts as the text the model reads: text as it is, data decoded, any other value as JSON. */
function resultText(content: readonly LmResultPart[], param: string): string {
    return content.map((part, index) => {
        switch (part.type) {
            case "text":
                return part.text;
            case "data":
                return dataText(part.mimeType, part.data, `${param}.content[${index}]`) ?? "";
            case "value":
                return typeof part.value === "string" ? part.value : JSON.stringify(part.value) ?? "";
        }
    }).join("");
}

/**
 * Bytes as text when their MIME type is text or JSON; images are refused (the model reads no images: its information
 * says `imageInput: false`); anything else is an editor's marker for its own providers (`cache_control`,
 * `stateful_marker`) and reads as nothing.
 */
function dataText(mimeType: string, data: Uint8Array, param: string): string | null {
    const type = mimeType.toLowerCase();
    if (type.startsWith("image/"))
        throw unsupported(param, `Image input is not supported: the local model reads text only (got ${mimeType}).`);
    if (type.startsWith("text/") || type === "application/json" || type.endsWith("+json"))
        return new TextDecoder().decode(data);
    return null;
}
