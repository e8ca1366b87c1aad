import {invalidRequestBody} from "../../protocol/errors.js";
import {isObject} from "../../protocol/isObject.js";
import {always, note} from "../../responses/requestSchemas/errorNotes.js";
import {checkBody, compileRequestSchema} from "../../responses/requestSchemas/validators.js";
import type {CompletionRequest} from "../../engine/completionTypes.js";

/**
 * `POST /infill`, llama.cpp server's fill-in-the-middle request as editors send it (llama.vscode, llama.vim): the text
 * before and after the cursor, other files for context (`input_extra`), and the text typed after the prefix
 * (`prompt`). Fields llama.cpp takes that change nothing here (`n_indent`, `t_max_prompt_ms`, `response_fields`,
 * `id_slot`, `samplers`, `min_p`) are accepted and ignored, as llama.cpp ignores what it does not know; a field of the
 * wrong type is refused.
 */

/** llama.cpp's sampling defaults, which its editors' requests rely on. */
const llamaCppDefaults = {temperature: 0.8, topK: 40, topP: 0.95};
const maxChars = 10_000_000;
const text = {type: "string", maxLength: maxChars};
const count = {type: "integer", minimum: -1, maximum: 100_000_000};

const infillRequestSchema = {
    $id: "infillRequest",
    type: "object",
    properties: {
        model: {type: "string", maxLength: 256},
        input_prefix: text,
        input_suffix: text,
        input_extra: {
            type: "array", maxItems: 10_000,
            items: {
                type: "object", required: ["text"],
                properties: {filename: {type: "string", maxLength: 4096}, text},
                ...always("Each 'input_extra' chunk must be an object with a string 'text' (and a string 'filename').")
            }
        },
        prompt: text,
        n_predict: count,
        t_max_predict_ms: {type: "integer", minimum: 0},
        t_max_prompt_ms: {type: "integer"},
        cache_prompt: {type: "boolean"},
        temperature: {type: "number", minimum: 0, maximum: 10},
        top_k: {type: "integer", minimum: 0},
        top_p: {type: "number", minimum: 0, maximum: 1},
        min_p: {type: "number", minimum: 0, maximum: 1},
        seed: {type: "integer"},
        stop: {type: "array", maxItems: 16, items: {type: "string", minLength: 1}},
        stream: {type: "boolean"},
        samplers: {type: ["array", "string"], items: {type: "string"}},
        n_indent: {type: "integer"},
        response_fields: {type: "array", items: {type: "string"}},
        id_slot: {type: "integer"},
        keep_alive: {$ref: "defs#/$defs/keepAlive"}
    },
    errors: {type: note("The request body must be a JSON object.", "invalid_type")}
};

export type InfillRequestBody = {
    model?: string,
    input_prefix?: string,
    input_suffix?: string,
    input_extra?: {filename?: string, text: string}[],
    prompt?: string,
    n_predict?: number,
    t_max_predict_ms?: number,
    t_max_prompt_ms?: number,
    cache_prompt?: boolean,
    temperature?: number,
    top_k?: number,
    top_p?: number,
    min_p?: number,
    seed?: number,
    stop?: string[],
    stream?: boolean,
    samplers?: string[] | string,
    n_indent?: number,
    response_fields?: string[],
    id_slot?: number,
    keep_alive?: number | string | null
};

const validateInfillRequest = compileRequestSchema<InfillRequestBody>(infillRequestSchema);

export type InfillRequest = {
    model: string | null,
    completion: Pick<CompletionRequest, "prompt" | "suffix" | "extra" | "maxOutputTokens" | "sampling" | "stopSequences" | "timeLimitMs">,
    stream: boolean,
    /** `cache_prompt: false`: the prompt reuses no cached prefix (the request runs in a partition of its own). */
    cachePrompt: boolean,
    keepAlive: number | string | null | undefined
};

export function parseInfillRequest(body: unknown): InfillRequest {
    if (!isObject(body))
        throw invalidRequestBody();
    const b = checkBody(validateInfillRequest, body);
    return {
        model: b.model ?? null,
        completion: {
            // llama.cpp tokenizes `prompt` after the prefix: the text typed since the prefix was taken.
            prompt: (b.input_prefix ?? "") + (b.prompt ?? ""),
            suffix: b.input_suffix ?? "",
            extra: (b.input_extra ?? []).map((chunk) => ({filename: chunk.filename ?? "", text: chunk.text})),
            maxOutputTokens: b.n_predict == null || b.n_predict < 0 ? undefined : b.n_predict,
            sampling: {
                temperature: b.temperature ?? llamaCppDefaults.temperature,
                topK: b.top_k ?? llamaCppDefaults.topK,
                topP: b.top_p ?? llamaCppDefaults.topP,
                seed: b.seed
            },
            stopSequences: b.stop ?? [],
            timeLimitMs: b.t_max_predict_ms == null || b.t_max_predict_ms === 0 ? undefined : b.t_max_predict_ms
        },
        stream: b.stream === true,
        cachePrompt: b.cache_prompt !== false,
        keepAlive: b.keep_alive
    };
}
