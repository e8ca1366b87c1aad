import type {LlamaModel} from "node-llama-cpp";
import type {KeyCacheType} from "../../keyCacheType.js";

/*
 * What llama.cpp makes of a `KeyCacheType` (the setting itself is the port's, in ../keyCacheType.ts): which models
 * can take 8-bit keys, and node-llama-cpp's spelling of the type.
 */

/** Values per `q8_0` block: llama.cpp needs each attention head's keys to fill whole blocks. */
const q8BlockValues = 32;

/**
 * The key type a model's context can take: `q8_0` only where each attention head's keys fill whole 32-value blocks
 * (llama.cpp refuses the context otherwise; stories260K's heads hold 8), else `f16`, with why.
 */
export function usableKeyCacheType(requested: KeyCacheType,
    model: Pick<LlamaModel, "fileInfo">): {type: KeyCacheType, note: string | null} {
    if (requested === "f16")
        return {type: "f16", note: null};
    const {embedding_length: width, attention} = model.fileInfo.architectureMetadata;
    const headKeys = attention?.key_length ?? (width != null && attention?.head_count ? width / attention.head_count : null);
    if (headKeys != null && headKeys % q8BlockValues === 0)
        return {type: "q8_0", note: null};
    return {
        type: "f16",
        note: `q8_0 keys need attention heads of a multiple of ${q8BlockValues} values; this model's `
            + `hold ${headKeys ?? "an unknown number"}: keys stay f16`
    };
}

/** node-llama-cpp's spelling of a key type (`createContext`'s `experimentalKvCacheKeyType`). */
export function nativeKeyCacheType(type: KeyCacheType): "F16" | "Q8_0" {
    return type === "q8_0" ? "Q8_0" : "F16";
}
