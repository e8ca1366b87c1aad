/**
 * GGUF headers written byte by byte, for tests of what a crafted or broken model file does to the reader: counts that
 * claim more than the file holds, or a valid header far larger than any model's. Little-endian, as GGUF is.
 * https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
 */
export const ggufType = {uint8: 0, uint32: 4, string: 8, array: 9} as const;

export function u32(value: number): Buffer {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32LE(value);
    return bytes;
}

export function u64(value: bigint): Buffer {
    const bytes = Buffer.alloc(8);
    bytes.writeBigUInt64LE(value);
    return bytes;
}

export function ggufString(text: string): Buffer {
    const bytes = Buffer.from(text, "utf8");
    return Buffer.concat([u64(BigInt(bytes.length)), bytes]);
}

/** A GGUF v3 file: magic, version, the counts as given (true or not), then `body` (the entries and tensor infos). */
export function ggufFile(counts: {tensors?: bigint, entries: bigint}, ...body: Buffer[]): Buffer {
    return Buffer.concat([Buffer.from("GGUF"), u32(3), u64(counts.tensors ?? 0n), u64(counts.entries), ...body]);
}

/** The audit's 99-byte file: one metadata entry, an array of uint8 that claims 2^40 items. */
export function hugeArrayGguf(): Buffer {
    const file = ggufFile({entries: 1n}, ggufString("general.name"), u32(ggufType.array), u32(ggufType.uint8), u64(2n ** 40n));
    return Buffer.concat([file, Buffer.alloc(99 - file.length)]);
}

/** A header that claims 2^62 metadata entries in 99 bytes. */
export function hugeEntryCountGguf(): Buffer {
    const file = ggufFile({entries: 2n ** 62n});
    return Buffer.concat([file, Buffer.alloc(99 - file.length)]);
}

/** A valid header of one metadata entry: an array of `count` short strings (~17 bytes each in the file). */
export function manyStringsGguf(count: number): Buffer {
    const strings = Array.from({length: count}, (_, index) => ggufString(`token-${index}`));
    return Buffer.concat([ggufFile({entries: 1n}, ggufString("general.tags"), u32(ggufType.array), u32(ggufType.string),
        u64(BigInt(count))), Buffer.concat(strings)]);
}
