import {invalidRequestBody} from "../../protocol/errors.js";
import {isObject} from "../../protocol/isObject.js";
import {always} from "../../responses/requestSchemas/errorNotes.js";
import {checkBody, compileRequestSchema} from "../../responses/requestSchemas/validators.js";

/**
 * `POST /v1/embeddings`, OpenAI's: `input` is a string, strings, a token list or token lists (at most 2048 inputs, as
 * OpenAI allows), each embedded on its own; `dimensions` shortens the vectors (checked against the model's size once
 * the model is known).
 */

const maxInputs = 2048;
const inputText = {type: "string", minLength: 1, maxLength: 10_000_000};
const tokenList = {type: "array", minItems: 1, maxItems: 1_000_000, items: {type: "integer", minimum: 0, maximum: 2 ** 31 - 1}};
const inputMessage = "'input' must be a non-empty string, an array of non-empty strings, an array of token ids, " +
    `or an array of token id arrays (at most ${maxInputs}).`;

const embeddingsRequestSchema = {
    $id: "embeddingsRequest",
    type: "object",
    additionalProperties: false,
    required: ["model", "input"],
    properties: {
        model: {type: "string", maxLength: 256},
        input: {
            anyOf: [
                inputText,
                {type: "array", minItems: 1, maxItems: maxInputs, items: inputText},
                tokenList,
                {type: "array", minItems: 1, maxItems: maxInputs, items: tokenList}
            ],
            ...always(inputMessage, "invalid_value")
        },
        encoding_format: {enum: ["float", "base64", null], ...always("'encoding_format' must be 'float' or 'base64'.", "invalid_value")},
        dimensions: {type: ["integer", "null"], minimum: 1, maximum: 1_000_000},
        user: {type: ["string", "null"], maxLength: 512},
        keep_alive: {$ref: "defs#/$defs/keepAlive"}
    }
};

export type EmbeddingsRequestBody = {
    model: string,
    input: string | string[] | number[] | number[][],
    encoding_format?: "float" | "base64" | null,
    dimensions?: number | null,
    user?: string | null,
    keep_alive?: number | string | null
};

const validateEmbeddingsRequest = compileRequestSchema<EmbeddingsRequestBody>(embeddingsRequestSchema);

export type EmbeddingsRequest = {
    model: string,
    inputs: (string | number[])[],
    encoding: "float" | "base64",
    dimensions: number | null,
    keepAlive: number | string | null | undefined
};

export function parseEmbeddingsRequest(body: unknown): EmbeddingsRequest {
    if (!isObject(body))
        throw invalidRequestBody();
    const b = checkBody(validateEmbeddingsRequest, body);
    const input = b.input;
    // One token list is one input; a list of strings or of token lists is several.
    const inputs = typeof input === "string" ? [input]
        : typeof input[0] === "number" ? [input as number[]]
            : input as (string | number[])[];
    return {model: b.model, inputs, encoding: b.encoding_format ?? "float", dimensions: b.dimensions ?? null, keepAlive: b.keep_alive};
}
