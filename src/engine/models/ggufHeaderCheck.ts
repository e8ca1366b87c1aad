import fs from "node:fs/promises";

/**
 * Bytes each fixed-size GGUF value takes, by GGUF's value type id (uint8 … float64; 8 string and 9 array vary).
 * https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
 */
const fixedValueBytes = new Map<number, number>([
    [0, 1], [1, 1], [2, 2], [3, 2], [4, 4], [5, 4], [6, 4], [7, 1], [10, 8], [11, 8], [12, 8]
]);
const stringType = 8;
const arrayType = 9;
/** The least a metadata entry takes: its key's length (8), its value type (4), a value of one byte. */
const minEntryBytes = 13n;
/** The least a tensor's info takes: its name's length (8), its dimension count (4), its type (4), its offset (8). */
const minTensorInfoBytes = 24n;
/** llama.cpp's GGML_MAX_DIMS: a tensor with more dimensions is refused by the loader. */
const maxTensorDimensions = 4;
const windowBytes = 1 << 20;

/**
 * Walks a local GGUF file's header (magic, version, counts, every metadata key and value, every tensor's info) checking
 * each count and length against the bytes left in the file before reading on, and throws one line saying what is wrong.
 * node-llama-cpp's reader trusts the counts: past the end of the file it reads zeros, so an array that claims 2^40 items
 * in a 99-byte file kept a process at 100% CPU while its memory grew by gigabytes. This walk allocates nothing per
 * item, and it takes time in proportion to the file's real header only.
 */
export async function checkGgufHeader(file: string): Promise<void> {
    const handle = await fs.open(file, "r");
    try {
        const reader = new HeaderReader(handle, (await handle.stat()).size);
        await walkHeader(reader);
    } finally {
        await handle.close();
    }
}

/** The error `checkGgufHeader` throws: its message is the whole reason, one line. */
export class UnreadableGgufError extends Error {
    public constructor(reason: string) {
        super(`not a GGUF file we can read: ${reason}`);
        this.name = "UnreadableGgufError";
    }
}

async function walkHeader(reader: HeaderReader): Promise<void> {
    if (await reader.text(4) !== "GGUF")
        throw new UnreadableGgufError("it does not start with \"GGUF\"");
    const version = await reader.uint32();
    if (version !== 2 && version !== 3)
        throw new UnreadableGgufError(`GGUF version ${version} (llama.cpp reads versions 2 and 3)`);
    const tensorCount = await reader.uint64();
    const entryCount = await reader.uint64();
    reader.fits(entryCount * minEntryBytes, `metadata of ${countText(entryCount)} entries`);
    for (let entry = 0n; entry < entryCount; entry++) {
        await reader.skipString("a metadata key");
        await skipValue(reader, await reader.uint32());
    }
    reader.fits(tensorCount * minTensorInfoBytes, `tensor info of ${countText(tensorCount)} tensors`);
    for (let tensor = 0n; tensor < tensorCount; tensor++) {
        await reader.skipString("a tensor name");
        const dimensions = await reader.uint32();
        if (dimensions > maxTensorDimensions)
            throw new UnreadableGgufError(`a tensor of ${dimensions} dimensions (llama.cpp reads at most ${maxTensorDimensions})`);
        // Each dimension (8 bytes), then the tensor's type (4) and its data's offset (8).
        await reader.skip(BigInt(dimensions * 8 + 12), "a tensor's info");
    }
}

async function skipValue(reader: HeaderReader, type: number): Promise<void> {
    const fixed = fixedValueBytes.get(type);
    if (fixed != null)
        return reader.skip(BigInt(fixed), "a metadata value");
    if (type === stringType)
        return reader.skipString("a metadata string");
    if (type !== arrayType)
        throw new UnreadableGgufError(`metadata value type ${type}, which GGUF does not define`);
    const itemType = await reader.uint32();
    const items = await reader.uint64();
    const itemBytes = fixedValueBytes.get(itemType);
    if (itemBytes != null)
        return reader.skip(items * BigInt(itemBytes), `metadata array of ${countText(items)} items`);
    if (itemType === arrayType)
        throw new UnreadableGgufError("a metadata array of arrays, which llama.cpp does not read");
    if (itemType !== stringType)
        throw new UnreadableGgufError(`metadata array item type ${itemType}, which GGUF does not define`);
    // Each string takes its length (8 bytes) at least: a count past that is refused before any is read.
    reader.fits(items * 8n, `metadata array of ${countText(items)} strings`);
    for (let item = 0n; item < items; item++)
        await reader.skipString("a metadata string");
}

/** A count as a reason shows it: a large power of two as 2^n (how a crafted count is usually written), else in digits. */
function countText(count: bigint): string {
    const bits = count.toString(2);
    return count >= 1n << 16n && /^10+$/.test(bits) ? `2^${bits.length - 1}` : count.toString();
}

/** Reads a file forward through a window of 1 MiB, knowing how many bytes are left. */
class HeaderReader {
    private readonly window = Buffer.alloc(windowBytes);
    private windowStart = 0;
    private windowLength = 0;
    private position = 0;

    public constructor(private readonly handle: fs.FileHandle, private readonly size: number) {}

    /** Throws unless `bytes` more are left in the file; `what` names them in the reason. */
    public fits(bytes: bigint, what: string): void {
        if (bytes > BigInt(this.size - this.position))
            throw new UnreadableGgufError(`${what} is larger than the file`);
    }

    public async skip(bytes: bigint, what: string): Promise<void> {
        this.fits(bytes, what);
        this.position += Number(bytes);
    }

    public async skipString(what: string): Promise<void> {
        const length = await this.uint64();
        await this.skip(length, `${what} of ${countText(length)} bytes`);
    }

    public async text(bytes: number): Promise<string> {
        const at = await this.take(bytes, "the file's magic");
        return this.window.toString("latin1", at, at + bytes);
    }

    public async uint32(): Promise<number> {
        return this.window.readUInt32LE(await this.take(4, "a header field"));
    }

    public async uint64(): Promise<bigint> {
        return this.window.readBigUInt64LE(await this.take(8, "a header field"));
    }

    /** Moves past `bytes` (at most the window's size) and returns where they start in the window. */
    private async take(bytes: number, what: string): Promise<number> {
        this.fits(BigInt(bytes), what);
        if (this.position < this.windowStart || this.position + bytes > this.windowStart + this.windowLength) {
            const {bytesRead} = await this.handle.read(this.window, 0, windowBytes, this.position);
            this.windowStart = this.position;
            this.windowLength = bytesRead;
        }
        const at = this.position - this.windowStart;
        this.position += bytes;
        return at;
    }
}
