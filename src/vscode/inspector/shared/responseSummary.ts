import type {ResponseFilter, ResponseSummary} from "./inspectorProtocol.js";

/** The fields of a Responses API object the inspector reads; the rest is shown as raw JSON. */
type ResponseLike = {
    id: string,
    created_at: number,
    status: string,
    model: string,
    background?: boolean | null,
    usage?: {input_tokens: number, output_tokens: number} | null,
    output: readonly unknown[],
    metadata?: Record<string, string> | null
};

const previewLength = 120;

export function summarizeResponse(response: ResponseLike): ResponseSummary {
    return {
        id: response.id,
        createdAt: response.created_at,
        status: response.status,
        model: response.model,
        inputTokens: response.usage?.input_tokens ?? null,
        outputTokens: response.usage?.output_tokens ?? null,
        background: response.background === true,
        preview: outputText(response.output).slice(0, previewLength),
        metadata: {...(response.metadata ?? {})}
    };
}

/** The text a person would read from an output: message text, then tool call names. */
export function outputText(output: readonly unknown[]): string {
    const parts: string[] = [];
    for (const item of output) {
        const typed = item as {type?: string, content?: {type?: string, text?: string, refusal?: string}[], name?: string};
        if (typed.type === "message")
            for (const part of typed.content ?? [])
                parts.push(part.text ?? part.refusal ?? "");
        else if ((typed.type === "function_call" || typed.type === "custom_tool_call") && typed.name != null)
            parts.push(`[${typed.type} ${typed.name}]`);
    }
    return parts.join(" ").replace(/\s+/g, " ").trim();
}

/**
 * Case-insensitive search over id, model, preview and metadata; `status` and `model` "" mean any. A model no response
 * has any more (all of its evicted) filters nothing out: see `modelFilter`.
 */
export function filterResponses(responses: readonly ResponseSummary[], filter: ResponseFilter): ResponseSummary[] {
    const needle = filter.search.trim().toLowerCase();
    const model = modelFilter(responses, filter.model).value;
    return responses.filter((response) => {
        if (filter.status !== "" && response.status !== filter.status)
            return false;
        if (model !== "" && response.model !== model)
            return false;
        if (needle === "")
            return true;
        const haystack = [response.id, response.model, response.preview,
            ...Object.entries(response.metadata).flat()].join("\n").toLowerCase();
        return haystack.includes(needle);
    });
}

/** The model filter's choices: "All models" first, then each model of the list, by name. */
export type ModelFilter = {
    /** Whether to offer it: more than one model among the responses. */
    shown: boolean,
    choices: {value: string, label: string}[],
    /** The choice in force: the one made, or "" (all) when no response of that model is left. */
    value: string
};

export function modelFilter(responses: readonly ResponseSummary[], chosen: string): ModelFilter {
    const models = [...new Set(responses.map((response) => response.model))].sort((a, b) => a.localeCompare(b));
    return {
        shown: models.length > 1,
        choices: [{value: "", label: "All models"}, ...models.map((model) => ({value: model, label: model}))],
        value: models.includes(chosen) ? chosen : ""
    };
}
