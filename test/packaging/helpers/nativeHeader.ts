/**
 * Reads what a native binary is built for from its header — ELF (Linux), Mach-O (macOS, thin or universal) and
 * PE/COFF (Windows) — so that a VSIX's contents are judged by their bytes, not by their file names.
 * Only the fields needed for that: format, architecture(s), word size and kind.
 */

export type NativeFormat = "elf" | "mach-o" | "pe";
export type NativeArch = "x64" | "arm64" | "arm" | "ia32" | "riscv64" | `unknown(${number})`;

export type NativeHeader = {
    format: NativeFormat,
    /** One per slice; a universal Mach-O has several. */
    archs: NativeArch[],
    bits: 32 | 64,
    kind: "executable" | "shared library" | "object" | "other"
};

/** Bytes from the start of a file that are enough for `readNativeHeader` (PE headers sit after the DOS stub). */
export const headerBytes = 4096;

const elfMachines: Record<number, NativeArch> = {3: "ia32", 40: "arm", 62: "x64", 183: "arm64", 243: "riscv64"};
const machOCpus: Record<number, NativeArch> = {7: "ia32", 12: "arm", 0x01000007: "x64", 0x0100000c: "arm64"};
const peMachines: Record<number, NativeArch> = {0x14c: "ia32", 0x1c4: "arm", 0x8664: "x64", 0xaa64: "arm64"};

function arch(table: Record<number, NativeArch>, code: number): NativeArch {
    return table[code] ?? `unknown(${code})`;
}

/** The header of a native binary, or null when the bytes are not one (text, JSON, an archive, a truncated file). */
export function readNativeHeader(bytes: Uint8Array): NativeHeader | null {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const has = (length: number) => bytes.byteLength >= length;
    if (has(20) && view.getUint32(0, false) === 0x7f454c46)
        return readElf(view);
    if (has(16)) {
        const magic = view.getUint32(0, false);
        if (magic === 0xcffaedfe || magic === 0xcefaedfe) // MH_MAGIC(_64) stored little-endian: every macOS target
            return readMachO(view, magic === 0xcffaedfe ? 64 : 32);
        if (magic === 0xcafebabe || magic === 0xcafebabf)
            return readFatMachO(view, magic === 0xcafebabf);
    }
    if (has(64) && view.getUint16(0, true) === 0x5a4d) // "MZ"
        return readPe(view);
    return null;
}

function readElf(view: DataView): NativeHeader | null {
    const elfClass = view.getUint8(4);
    const littleEndian = view.getUint8(5) === 1;
    if (elfClass !== 1 && elfClass !== 2)
        return null;
    const type = view.getUint16(16, littleEndian);
    const kinds: Record<number, NativeHeader["kind"]> = {1: "object", 2: "executable", 3: "shared library"};
    // ET_DYN is also a position-independent executable: both are loadable code of this architecture.
    return {
        format: "elf", archs: [arch(elfMachines, view.getUint16(18, littleEndian))], bits: elfClass === 1 ? 32 : 64,
        kind: kinds[type] ?? "other"
    };
}

function machOKind(fileType: number): NativeHeader["kind"] {
    return ({1: "object", 2: "executable", 6: "shared library", 8: "shared library"} as Record<number, NativeHeader["kind"]>)[fileType]
        ?? "other";
}

function readMachO(view: DataView, bits: 32 | 64): NativeHeader {
    return {format: "mach-o", archs: [arch(machOCpus, view.getInt32(4, true))], bits, kind: machOKind(view.getUint32(12, true))};
}

/** A universal binary: big-endian fat header, then one (cputype, cpusubtype, offset, size, align) entry per slice. */
function readFatMachO(view: DataView, fat64: boolean): NativeHeader | null {
    const count = view.getUint32(4, false);
    const entrySize = fat64 ? 32 : 20;
    // Java class files share the 0xcafebabe magic; their next word (a version) is far above any slice count.
    if (count === 0 || count > 16 || view.byteLength < 8 + count * entrySize)
        return null;
    const archs = Array.from({length: count}, (_, index) => arch(machOCpus, view.getInt32(8 + index * entrySize, false)));
    return {format: "mach-o", archs, bits: archs.every((name) => name === "x64" || name === "arm64") ? 64 : 32, kind: "other"};
}

function readPe(view: DataView): NativeHeader | null {
    const peOffset = view.getUint32(0x3c, true);
    if (peOffset + 24 > view.byteLength || view.getUint32(peOffset, false) !== 0x50450000) // "PE\0\0"
        return null;
    const machine = view.getUint16(peOffset + 4, true);
    const characteristics = view.getUint16(peOffset + 22, true);
    const optionalMagic = peOffset + 26 <= view.byteLength ? view.getUint16(peOffset + 24, true) : 0;
    const kind = (characteristics & 0x2000) !== 0 ? "shared library" : (characteristics & 0x0002) !== 0 ? "executable" : "other";
    return {format: "pe", archs: [arch(peMachines, machine)], bits: optionalMagic === 0x20b ? 64 : 32, kind};
}
