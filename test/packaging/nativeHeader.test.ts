import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {test} from "node:test";
import {repoRoot} from "../helpers/paths.js";
import {headerBytes, readNativeHeader} from "./helpers/nativeHeader.js";
import {readStart} from "./helpers/vsix.js";

/** An ELF header: class (1 = 32-bit, 2 = 64-bit), data (1 = little-endian), e_type, e_machine. */
function elf(elfClass: number, type: number, machine: number, littleEndian = true): Buffer {
    const bytes = Buffer.alloc(64);
    bytes.write("\x7fELF", 0, "latin1");
    bytes[4] = elfClass;
    bytes[5] = littleEndian ? 1 : 2;
    if (littleEndian) {
        bytes.writeUInt16LE(type, 16);
        bytes.writeUInt16LE(machine, 18);
    } else {
        bytes.writeUInt16BE(type, 16);
        bytes.writeUInt16BE(machine, 18);
    }
    return bytes;
}

function machO(cpu: number, fileType: number): Buffer {
    const bytes = Buffer.alloc(32);
    bytes.writeUInt32LE(0xfeedfacf, 0);
    bytes.writeInt32LE(cpu, 4);
    bytes.writeUInt32LE(fileType, 12);
    return bytes;
}

function fatMachO(cpus: number[]): Buffer {
    const bytes = Buffer.alloc(8 + cpus.length * 20);
    bytes.writeUInt32BE(0xcafebabe, 0);
    bytes.writeUInt32BE(cpus.length, 4);
    cpus.forEach((cpu, index) => bytes.writeInt32BE(cpu, 8 + index * 20));
    return bytes;
}

function pe(machine: number, characteristics: number, optionalMagic = 0x20b, peOffset = 0x80): Buffer {
    const bytes = Buffer.alloc(peOffset + 64);
    bytes.write("MZ", 0, "latin1");
    bytes.writeUInt32LE(peOffset, 0x3c);
    bytes.write("PE\0\0", peOffset, "latin1");
    bytes.writeUInt16LE(machine, peOffset + 4);
    bytes.writeUInt16LE(characteristics, peOffset + 22);
    bytes.writeUInt16LE(optionalMagic, peOffset + 24);
    return bytes;
}

test("ELF: architecture, word size and kind from e_ident, e_machine and e_type", () => {
    assert.deepEqual(readNativeHeader(elf(2, 3, 62)), {format: "elf", archs: ["x64"], bits: 64, kind: "shared library"});
    assert.deepEqual(readNativeHeader(elf(2, 3, 183)), {format: "elf", archs: ["arm64"], bits: 64, kind: "shared library"});
    assert.deepEqual(readNativeHeader(elf(1, 2, 40)), {format: "elf", archs: ["arm"], bits: 32, kind: "executable"});
    assert.deepEqual(readNativeHeader(elf(2, 1, 243, false)), {format: "elf", archs: ["riscv64"], bits: 64, kind: "object"});
    assert.deepEqual(readNativeHeader(elf(2, 3, 999))?.archs, ["unknown(999)"]);
    assert.equal(readNativeHeader(elf(7, 3, 62)), null, "invalid class");
});

test("Mach-O: thin 64-bit files and universal binaries", () => {
    assert.deepEqual(readNativeHeader(machO(0x0100000c, 6)), {format: "mach-o", archs: ["arm64"], bits: 64, kind: "shared library"});
    assert.deepEqual(readNativeHeader(machO(0x01000007, 8)), {format: "mach-o", archs: ["x64"], bits: 64, kind: "shared library"});
    assert.deepEqual(readNativeHeader(machO(0x01000007, 2))?.kind, "executable");
    assert.deepEqual(readNativeHeader(fatMachO([0x01000007, 0x0100000c]))?.archs, ["x64", "arm64"]);
    // A Java class file has the same magic, then a version number, not a slice count.
    const javaClass = Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x41, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert.equal(readNativeHeader(javaClass), null);
});

test("PE: machine, DLL flag and PE32+ from the COFF and optional headers after the DOS stub", () => {
    assert.deepEqual(readNativeHeader(pe(0x8664, 0x2022)), {format: "pe", archs: ["x64"], bits: 64, kind: "shared library"});
    assert.deepEqual(readNativeHeader(pe(0xaa64, 0x2022)), {format: "pe", archs: ["arm64"], bits: 64, kind: "shared library"});
    assert.deepEqual(readNativeHeader(pe(0x14c, 0x0102, 0x10b)), {format: "pe", archs: ["ia32"], bits: 32, kind: "executable"});
    const noPe = pe(0x8664, 0x2022);
    noPe.write("XX", 0x80, "latin1");
    assert.equal(readNativeHeader(noPe), null, "MZ without a PE signature");
    assert.equal(readNativeHeader(pe(0x8664, 0x2022, 0x20b, 5000).subarray(0, headerBytes)), null, "PE header beyond the bytes read");
});

test("not native: text, JSON, an ar archive, empty and truncated files", () => {
    for (const bytes of [
        Buffer.from("#!/usr/bin/env node\n"), Buffer.from("{\"a\":1}"), Buffer.from("!<arch>\n/               "), Buffer.alloc(0),
        elf(2, 3, 62).subarray(0, 10)
    ])
        assert.equal(readNativeHeader(bytes), null, JSON.stringify(bytes.subarray(0, 12).toString("latin1")));
});

test("real files on this machine: the Node executable and node-llama-cpp's linux-x64 addon", () => {
    const read = (file: string) => readStart(file, headerBytes);
    const node = readNativeHeader(read(fs.realpathSync(process.execPath)));
    assert.equal(node?.format, "elf");
    assert.deepEqual(node?.archs, ["x64"]);
    const addon = readNativeHeader(read(path.join(repoRoot, "node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/llama-addon.node")));
    assert.deepEqual(addon, {format: "elf", archs: ["x64"], bits: 64, kind: "shared library"});
    assert.equal(readNativeHeader(read(path.join(repoRoot, "package.json"))), null);
});
