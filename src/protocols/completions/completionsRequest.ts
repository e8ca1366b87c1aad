import {invalidRequest, invalidRequestBody} from "../../protocol/errors.js";
import {isObject} from "../../protocol/isObject.js";
import {always, note} from "../../responses/requestSchemas/errorNotes.js";
import {checkBody, compileRequestSchema} from "../../responses/requestSchemas/validators.js";
import type {CompletionRequest} from "../../engine/completionTypes.js";

/**
 * `POST /v1/completions`, OpenAI's legacy text completions: the prompt is the model's input as it stands (no chat
 * template); with `suffix`, the model fills in between them with its own fill-in-the-middle tokens. Unknown fields and
 * what this server cannot honour (`n` > 1, `best_of` > 1, `logprobs`, `logit_bias`) are refused by name.
 */

/** OpenAI's default for `max_tokens` in this API: a completion is short unless the client asks. */
export const defaultCompletionTokens = 16;

const oneChoice = "this server generates one choice per request.";
const unsupported = (message: string) => always(message, "unsupported_value");
const tokenCount = {type: ["integer", "null"], minimum: 1, maximum: 100_000_000};
/** Ten million characters: past any context, refused before tokenizing. */
const maxPromptChars = 10_000_000;

const completionsRequestSchema = {
    $id: "completionsRequest",
    type: "object",
    additionalProperties: false,
    required: ["model", "prompt"],
    properties: {
        model: {type: "string", maxLength: 256},
        prompt: {
            type: ["string", "array"], maxLength: maxPromptChars, minItems: 1, maxItems: 1,
            items: {type: "string", maxLength: maxPromptChars},
            errors: {
                type: note("'prompt' must be a string or an array of one string.", "invalid_type"),
                maxItems: note("'prompt' holds one prompt here: this server generates one choice per request.", "unsupported_value")
            }
        },
        suffix: {type: ["string", "null"], maxLength: maxPromptChars},
        max_tokens: tokenCount,
        temperature: {type: ["number", "null"], minimum: 0, maximum: 2},
        top_p: {type: ["number", "null"], minimum: 0, maximum: 1},
        stop: {
            type: ["string", "array", "null"], minLength: 1, maxItems: 4, items: {type: "string", minLength: 1},
            ...always("'stop' must be a non-empty string or an array of up to 4 non-empty strings.", "invalid_value")
        },
        seed: {type: ["integer", "null"], minimum: -(2 ** 63), maximum: 2 ** 63},
        n: {type: ["integer", "null"], minimum: 1, maximum: 1, ...unsupported(`'n' must be 1: ${oneChoice}`)},
        best_of: {type: ["integer", "null"], minimum: 1, maximum: 1, ...unsupported(`'best_of' must be 1: ${oneChoice}`)},
        stream: {type: ["boolean", "null"]},
        stream_options: {
            type: ["object", "null"], additionalProperties: false,
            properties: {include_usage: {type: "boolean"}, include_obfuscation: {type: "boolean"}}
        },
        echo: {type: ["boolean", "null"]},
        logprobs: {type: "null", ...unsupported("'logprobs' is not supported on /v1/completions: use /v1/chat/completions.")},
        logit_bias: {type: ["object", "null"], maxProperties: 0, ...unsupported("'logit_bias' is not supported by this server.")},
        presence_penalty: {type: ["number", "null"], minimum: -2, maximum: 2},
        frequency_penalty: {type: ["number", "null"], minimum: -2, maximum: 2},
        user: {type: ["string", "null"], maxLength: 512},
        keep_alive: {$ref: "defs#/$defs/keepAlive"}
    }
};

export type CompletionsRequestBody = {
    model: string,
    prompt: string | [string],
    suffix?: string | null,
    max_tokens?: number | null,
    temperature?: number | null,
    top_p?: number | null,
    stop?: string | string[] | null,
    seed?: number | null,
    n?: number | null,
    best_of?: number | null,
    stream?: boolean | null,
    stream_options?: {include_usage?: boolean, include_obfuscation?: boolean} | null,
    echo?: boolean | null,
    logprobs?: null,
    logit_bias?: Record<string, never> | null,
    presence_penalty?: number | null,
    frequency_penalty?: number | null,
    user?: string | null,
    keep_alive?: number | string | null
};

const validateCompletionsRequest = compileRequestSchema<CompletionsRequestBody>(completionsRequestSchema);

/** A checked completions request: what the engine runs, and how the answer is written. */
export type CompletionsRequest = {
    model: string,
    completion: Pick<CompletionRequest, "prompt" | "suffix" | "maxOutputTokens" | "sampling" | "stopSequences">,
    stream: boolean,
    /** `stream_options.include_usage`: a last chunk with no choices carries the usage. */
    includeUsage: boolean,
    /** `echo`: the answer's text starts with the prompt. */
    echo: boolean,
    keepAlive: number | string | null | undefined
};

export function parseCompletionsRequest(body: unknown): CompletionsRequest {
    if (!isObject(body))
        throw invalidRequestBody();
    const b = checkBody(validateCompletionsRequest, body);
    if (b.stream_options != null && b.stream !== true)
        throw invalidRequest("'stream_options' is only allowed when 'stream' is true.", "stream_options", "invalid_value");
    if (b.echo === true && b.suffix != null)
        throw invalidRequest("'echo' cannot be combined with 'suffix'.", "echo", "invalid_value");
    const stop = b.stop == null ? [] : typeof b.stop === "string" ? [b.stop] : b.stop;
    return {
        model: b.model,
        completion: {
            prompt: typeof b.prompt === "string" ? b.prompt : b.prompt[0],
            suffix: b.suffix ?? undefined,
            maxOutputTokens: b.max_tokens ?? defaultCompletionTokens,
            sampling: {
                temperature: b.temperature ?? undefined, topP: b.top_p ?? undefined, seed: b.seed ?? undefined,
                presencePenalty: b.presence_penalty ?? undefined, frequencyPenalty: b.frequency_penalty ?? undefined
            },
            stopSequences: stop
        },
        stream: b.stream === true,
        includeUsage: b.stream_options?.include_usage === true,
        echo: b.echo === true,
        keepAlive: b.keep_alive
    };
}
