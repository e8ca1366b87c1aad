import {el} from "../dom.js";

type AnyItem = Record<string, unknown> & {type?: string, role?: string};

/** How the response asked its text to be shaped: structured JSON output is rendered as JSON. */
export type TextFormat = {type?: string, name?: string} | null | undefined;

/**
 * One input or output item, structured by kind: messages with their text (JSON output pretty-printed), function
 * and custom tool calls with their arguments, tool outputs, reasoning; each with its raw JSON behind a toggle.
 */
export function itemView(item: AnyItem, format: TextFormat): HTMLElement {
    const kind = item.type ?? "message";
    return el("li", {className: `item item-${kind}`, "data-item-type": kind},
        el("div", {className: "item-kind"}, ...itemHeading(item)),
        itemBody(item, format),
        el("details", {className: "raw item-raw"}, el("summary", {}, "Raw JSON"),
            el("pre", {className: "mono"}, JSON.stringify(item, null, 2))));
}

function itemHeading(item: AnyItem): (string | HTMLElement)[] {
    const callId = typeof item.call_id === "string" ? el("span", {className: "call-id mono", title: "call_id"}, item.call_id) : null;
    switch (item.type) {
        case "message":
        case undefined:
            return [`message · ${item.role ?? ""}`];
        case "function_call":
            return ["function call ", el("strong", {className: "mono"}, String(item.name ?? "")), " ", ...(callId != null ? [callId] : [])];
        case "custom_tool_call":
            return [
                "custom tool call ", el("strong", {className: "mono"}, String(item.name ?? "")), " ", ...(callId != null ? [callId] : [])
            ];
        case "function_call_output":
        case "custom_tool_call_output":
            return [item.type === "function_call_output" ? "function output " : "custom tool output ", ...(callId != null ? [callId] : [])];
        default:
            return [String(item.type)];
    }
}

function itemBody(item: AnyItem, format: TextFormat): HTMLElement {
    switch (item.type) {
        case "message":
        case undefined:
            return messageBody(item, format);
        case "function_call":
            return jsonBlock(String(item.arguments ?? ""), "Arguments");
        case "custom_tool_call":
            return labeled("Input", el("pre", {className: "item-body mono"}, String(item.input ?? "")));
        case "function_call_output":
        case "custom_tool_call_output":
            return typeof item.output === "string" ? jsonBlock(item.output, "Output")
                : labeled("Output",
                    el("pre", {className: "item-body mono"}, contentText(item.output) ?? JSON.stringify(item.output, null, 2)));
        case "reasoning":
            return reasoningBody(item);
        default:
            return el("pre", {className: "item-body mono"}, JSON.stringify(item, null, 2));
    }
}

function messageBody(item: AnyItem, format: TextFormat): HTMLElement {
    const content = item.content;
    if (typeof content === "string")
        return el("div", {className: "item-body"}, content);
    const parts = (content as {type?: string, text?: string, refusal?: string}[] | undefined) ?? [];
    const structured = item.role === "assistant" && (format?.type === "json_schema" || format?.type === "json_object");
    return el("div", {className: "item-parts"}, ...parts.map((part) => {
        if (part.type === "refusal")
            return el("div", {className: "item-body refusal", role: "note"}, el("strong", {}, "Refusal: "), part.refusal ?? "");
        const text = part.text ?? "";
        if (structured)
            return jsonBlock(text, format?.name != null ? `Structured output (${format.name})` : "Structured output (JSON)");
        if (part.type === "input_image" || part.type === "input_file")
            return el("div", {className: "item-body empty"}, `[${part.type}]`);
        return el("div", {className: "item-body"}, text);
    }));
}

function reasoningBody(item: AnyItem): HTMLElement {
    const summary = ((item.summary as {text?: string}[] | undefined) ?? []).map((part) => part.text ?? "").filter(Boolean);
    const content = ((item.content as {text?: string}[] | undefined) ?? []).map((part) => part.text ?? "").filter(Boolean);
    const encrypted = typeof item.encrypted_content === "string" ? item.encrypted_content.length : 0;
    return el("div", {className: "item-parts"},
        summary.length > 0 ? labeled("Summary", el("div", {className: "item-body"}, summary.join("\n"))) : null,
        content.length > 0 ? labeled("Reasoning", el("div", {className: "item-body reasoning"}, content.join("\n"))) : null,
        encrypted > 0
            ? el("p", {className: "empty"}, `Encrypted reasoning (${encrypted} characters), replayed when the client sends it back.`)
            : null,
        summary.length + content.length === 0 && encrypted === 0 ? el("p", {className: "empty"}, "(no reasoning text)") : null);
}

/** JSON text pretty-printed; text that does not parse is shown as it is, and said so. */
function jsonBlock(text: string, label: string): HTMLElement {
    try {
        const parsed: unknown = JSON.parse(text);
        return labeled(label, el("pre", {className: "item-body mono json"}, JSON.stringify(parsed, null, 2)));
    } catch {
        return labeled(`${label} (not valid JSON)`, el("pre", {className: "item-body mono"}, text));
    }
}

function labeled(label: string, body: HTMLElement): HTMLElement {
    return el("div", {className: "labeled"}, el("div", {className: "part-label"}, label), body);
}

function contentText(output: unknown): string | null {
    if (!Array.isArray(output))
        return null;
    return output.map((part: {text?: string, type?: string}) => part.text ?? `[${part.type ?? "part"}]`).join("\n");
}
