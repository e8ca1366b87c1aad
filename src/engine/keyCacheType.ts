/**
 * The type of the KV cache's keys (llama.cpp's `--cache-type-k`): `f16`, llama.cpp's default, or `q8_0`.
 *
 * `q8_0` keys take half the memory and, on a CPU, make attention cheaper: llama.cpp multiplies 8-bit blocks with integer
 * SIMD where it converts every f16 key. node-llama-cpp alone, synthetic SmolLM2-135M, 1 thread: a prompt's first 2,000
 * tokens took 0.83 of the time, the next 6,000 0.78, one generated token 0.90 (docs/performance.md). The values stay
 * f16: llama.cpp quantizes them only with flash attention, which costs generation far more on a CPU.
 */
export type KeyCacheType = "f16" | "q8_0";

export const keyCacheTypes: readonly KeyCacheType[] = ["f16", "q8_0"];

/** Whether a value read from a flag, a setting or the environment names a key type. */
export function isKeyCacheType(value: unknown): value is KeyCacheType {
    return (keyCacheTypes as readonly unknown[]).includes(value);
}

/** The key type `raw` names, or an error naming the choices (`source`: the flag or setting it was read from). */
export function requireKeyCacheType(raw: unknown, source: string): KeyCacheType {
    if (!isKeyCacheType(raw))
        throw new Error(`${source} must be ${keyCacheTypes.join(" or ")} (got ${JSON.stringify(raw)})`);
    return raw;
}

/**
 * f16 by default: node-llama-cpp 3.21.1 calls its cache-type option experimental, and 8-bit keys change every attention
 * score slightly (within llama.cpp's usual quantization error), so they are a choice, not a default.
 */
export const defaultKeyCacheType: KeyCacheType = "f16";
