import {isObject} from "../protocol/isObject.js";
import {ApiError, invalidRequest} from "../protocol/errors.js";
import {newId} from "../protocol/ids.js";
import type {
    Item, ItemStatus, MessageContentPart, MessageItem, MessageRole, ReasoningItem, ReasoningTextPart, SummaryTextPart
} from "../protocol/wire.js";

/** Looks up an item this server stored before (for `item_reference` input items). */
export type ItemResolver = (id: string) => Item | undefined;

const roles = new Set<MessageRole>(["user", "assistant", "system", "developer"]);
const statuses = new Set<ItemStatus>(["in_progress", "completed", "incomplete"]);

/**
 * Normalises the `input` of a request into the items this server keeps: every item typed, with an id
 * (a client's own id is kept, so replayed output keeps its identity) and content as an array of parts.
 */
export function normalizeInput(input: unknown, resolveItem?: ItemResolver): Item[] {
    if (input == null)
        return [];

    if (typeof input === "string")
        return [{type: "message", id: newId("msg"), status: "completed", role: "user", content: [{type: "input_text", text: input}]}];

    if (!Array.isArray(input))
        throw invalidRequest("'input' must be a string or an array of items.", "input", "invalid_type");

    return input.map((raw, index) => normalizeItem(raw, `input[${index}]`, resolveItem));
}

function normalizeItem(raw: unknown, param: string, resolveItem?: ItemResolver): Item {
    if (!isObject(raw))
        throw invalidRequest(`'${param}' must be an object.`, param, "invalid_type");

    const type = raw.type ?? (raw.role != null ? "message" : undefined);
    switch (type) {
        case "message": return normalizeMessage(raw, param);
        case "function_call":
            return {
                type: "function_call",
                id: optionalId(raw.id, param) ?? newId("fc"),
                call_id: requireString(raw.call_id, `${param}.call_id`),
                name: requireString(raw.name, `${param}.name`),
                arguments: requireString(raw.arguments, `${param}.arguments`, true),
                status: optionalStatus(raw.status, param) ?? "completed"
            };
        case "function_call_output":
            return {
                type: "function_call_output",
                id: optionalId(raw.id, param) ?? newId("fc"),
                call_id: requireString(raw.call_id, `${param}.call_id`),
                output: toolOutput(raw.output, `${param}.output`),
                status: optionalStatus(raw.status, param) ?? "completed"
            };
        case "custom_tool_call":
            return {
                type: "custom_tool_call",
                id: optionalId(raw.id, param) ?? newId("ctc"),
                call_id: requireString(raw.call_id, `${param}.call_id`),
                name: requireString(raw.name, `${param}.name`),
                input: requireString(raw.input, `${param}.input`, true),
                status: optionalStatus(raw.status, param) ?? "completed"
            };
        case "custom_tool_call_output":
            return {
                type: "custom_tool_call_output",
                id: optionalId(raw.id, param) ?? newId("ctc"),
                call_id: requireString(raw.call_id, `${param}.call_id`),
                output: toolOutput(raw.output, `${param}.output`),
                status: optionalStatus(raw.status, param) ?? "completed"
            };
        case "reasoning": return normalizeReasoning(raw, param);
        case "compaction":
            return {
                type: "compaction",
                id: optionalId(raw.id, param) ?? newId("cmp"),
                encrypted_content: requireString(raw.encrypted_content, `${param}.encrypted_content`)
            };
        case "item_reference": {
            const id = requireString(raw.id, `${param}.id`);
            const item = resolveItem?.(id);
            if (item == null)
                throw new ApiError(404, `Item '${id}' referenced by '${param}' was not found.`, {param: `${param}.id`, code: "item_not_found"});
            return item;
        }
        case undefined:
            throw invalidRequest(`'${param}' needs a 'type' (or a 'role' for a message).`, `${param}.type`, "missing_required_parameter");
        default:
            throw invalidRequest(`Unsupported input item type '${String(type)}' in '${param}'.`, `${param}.type`, "unsupported_value");
    }
}

function normalizeMessage(raw: Record<string, unknown>, param: string): MessageItem {
    const role = raw.role;
    if (typeof role !== "string" || !roles.has(role as MessageRole))
        throw invalidRequest(`'${param}.role' must be one of user, assistant, system, developer.`, `${param}.role`);

    const content = raw.content;
    let parts: MessageContentPart[];
    if (typeof content === "string")
        parts = [role === "assistant"
            ? {type: "output_text", text: content, annotations: []}
            : {type: "input_text", text: content}];
    else if (Array.isArray(content))
        parts = content.map((part, index) => normalizePart(part, `${param}.content[${index}]`));
    else
        throw invalidRequest(`'${param}.content' must be a string or an array of content parts.`, `${param}.content`, "invalid_type");

    return {
        type: "message",
        id: optionalId(raw.id, param) ?? newId("msg"),
        status: optionalStatus(raw.status, param) ?? "completed",
        role: role as MessageRole,
        content: parts
    };
}

function normalizePart(raw: unknown, param: string): MessageContentPart {
    if (!isObject(raw))
        throw invalidRequest(`'${param}' must be an object.`, param, "invalid_type");

    switch (raw.type) {
        case "input_text":
            return {type: "input_text", text: requireString(raw.text, `${param}.text`, true)};
        case "output_text":
            return {type: "output_text", text: requireString(raw.text, `${param}.text`, true), annotations: Array.isArray(raw.annotations) ? raw.annotations : []};
        case "refusal":
            return {type: "refusal", refusal: requireString(raw.refusal, `${param}.refusal`, true)};
        case "input_image":
        case "input_file":
        case "input_audio":
        case "input_video":
            throw noMediaSupport(String(raw.type), param);
        default:
            throw invalidRequest(`Unsupported content part type '${String(raw.type)}' in '${param}'.`, `${param}.type`, "unsupported_value");
    }
}

/** node-llama-cpp 3.21.1 has no multimodal input: say so by name instead of dropping the part. */
function noMediaSupport(type: string, param: string): ApiError {
    return invalidRequest(
        `'${type}' content is not supported: the local engine (node-llama-cpp) has no vision or file input. Send text only.`,
        `${param}.type`,
        "unsupported_content_type"
    );
}

function toolOutput(raw: unknown, param: string): string | unknown[] {
    if (typeof raw === "string")
        return raw;

    if (Array.isArray(raw)) {
        raw.forEach((part, index) => {
            if (!isObject(part) || (part.type !== "input_text" && part.type !== "output_text"))
                throw isObject(part) && typeof part.type === "string" && part.type.startsWith("input_")
                    ? noMediaSupport(part.type, `${param}[${index}]`)
                    : invalidRequest(`'${param}[${index}]' must be a text part.`, `${param}[${index}]`);
        });
        return raw;
    }

    throw invalidRequest(`'${param}' must be a string or an array of text parts.`, param, "invalid_type");
}

function normalizeReasoning(raw: Record<string, unknown>, param: string): ReasoningItem {
    const summary = raw.summary ?? [];
    if (!Array.isArray(summary))
        throw invalidRequest(`'${param}.summary' must be an array.`, `${param}.summary`, "invalid_type");

    const content = raw.content;
    if (content != null && !Array.isArray(content))
        throw invalidRequest(`'${param}.content' must be an array or null.`, `${param}.content`, "invalid_type");

    if (raw.encrypted_content != null && typeof raw.encrypted_content !== "string")
        throw invalidRequest(`'${param}.encrypted_content' must be a string.`, `${param}.encrypted_content`, "invalid_type");

    return {
        type: "reasoning",
        id: optionalId(raw.id, param) ?? newId("rs"),
        summary: summary.map((part, index) => textPart<SummaryTextPart>(part, "summary_text", `${param}.summary[${index}]`)),
        content: content == null ? null : content.map((part, index) => textPart<ReasoningTextPart>(part, "reasoning_text", `${param}.content[${index}]`)),
        encrypted_content: (raw.encrypted_content as string | undefined) ?? null
    };
}

function textPart<T extends {type: string, text: string}>(raw: unknown, type: T["type"], param: string): T {
    if (!isObject(raw) || raw.type !== type || typeof raw.text !== "string")
        throw invalidRequest(`'${param}' must be a '${type}' part with a text.`, param);
    return {type, text: raw.text} as T;
}

function optionalId(raw: unknown, param: string): string | undefined {
    if (raw == null)
        return undefined;
    if (typeof raw !== "string" || raw.length === 0 || raw.length > 256)
        throw invalidRequest(`'${param}.id' must be a non-empty string.`, `${param}.id`, "invalid_type");
    return raw;
}

function optionalStatus(raw: unknown, param: string): ItemStatus | undefined {
    if (raw == null)
        return undefined;
    if (typeof raw !== "string" || !statuses.has(raw as ItemStatus))
        throw invalidRequest(`'${param}.status' must be one of in_progress, completed, incomplete.`, `${param}.status`);
    return raw as ItemStatus;
}

function requireString(raw: unknown, param: string, allowEmpty = false): string {
    if (typeof raw !== "string" || (!allowEmpty && raw.length === 0))
        throw invalidRequest(`'${param}' must be a${allowEmpty ? "" : " non-empty"} string.`, param, raw == null ? "missing_required_parameter" : "invalid_type");
    return raw;
}

