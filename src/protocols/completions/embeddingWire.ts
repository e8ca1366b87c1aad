import {invalidRequest} from "../../protocol/errors.js";
import type {EmbeddingResult} from "../../engine/completionTypes.js";

/** OpenAI's embedding list: one `embedding` object per input, as floats or as base64 of little-endian float32. */
export type EmbeddingListBody = {
    object: "list",
    data: {object: "embedding", index: number, embedding: number[] | string}[],
    model: string,
    usage: {prompt_tokens: number, total_tokens: number}
};

export type EmbeddingListOptions = {encoding: "float" | "base64", dimensions: number | null};

export function embeddingList(result: EmbeddingResult, model: string, options: EmbeddingListOptions): EmbeddingListBody {
    const size = result.vectors[0]?.length ?? 0;
    if (options.dimensions != null && options.dimensions > size)
        throw invalidRequest(`'dimensions' must be at most ${size}: the model '${model}' makes vectors of ${size} dimensions.`,
            "dimensions", "invalid_value");
    return {
        object: "list",
        data: result.vectors.map((vector, index) => {
            const shortened = options.dimensions == null || options.dimensions === size ? vector : shorten(vector, options.dimensions);
            return {object: "embedding", index, embedding: options.encoding === "base64" ? base64(shortened) : shortened};
        }),
        model,
        usage: {prompt_tokens: result.inputTokens, total_tokens: result.inputTokens}
    };
}

/** The first `dimensions` components, scaled back to unit length (as OpenAI's shortened embeddings are). */
export function shorten(vector: readonly number[], dimensions: number): number[] {
    const kept = vector.slice(0, dimensions);
    const norm = Math.sqrt(kept.reduce((sum, value) => sum + value * value, 0));
    return norm === 0 ? kept : kept.map((value) => value / norm);
}

function base64(vector: readonly number[]): string {
    return Buffer.from(new Float32Array(vector).buffer).toString("base64");
}
