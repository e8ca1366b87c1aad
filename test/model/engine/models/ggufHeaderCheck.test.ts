import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, test} from "node:test";
import {checkGgufHeader} from "../../../../src/engine/models/ggufHeaderCheck.js";
import {
    ggufFile, ggufString, ggufType, hugeArrayGguf, hugeEntryCountGguf, manyStringsGguf, u32, u64
} from "../../../helpers/craftedGguf.js";
import {models} from "../../../helpers/paths.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-gguf-check-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

function written(name: string, bytes: Buffer): string {
    const file = path.join(root, name);
    fs.writeFileSync(file, bytes);
    return file;
}

test("the shared models' headers pass, and so does a valid header of many strings", async () => {
    for (const file of Object.values(models))
        await checkGgufHeader(file);
    await checkGgufHeader(written("strings.gguf", manyStringsGguf(1000)));
});

test("counts past the end of the file are refused at once, with one line saying which", async () => {
    const refusals: [Buffer, RegExp][] = [
        [hugeArrayGguf(), /^not a GGUF file we can read: metadata array of 2\^40 items is larger than the file$/],
        [hugeEntryCountGguf(), /^not a GGUF file we can read: metadata of 2\^62 entries is larger than the file$/],
        [ggufFile({entries: 0n, tensors: 2n ** 40n}), /tensor info of 2\^40 tensors is larger than the file/],
        [ggufFile({entries: 1n}, ggufString("general.tags"), u32(ggufType.array), u32(ggufType.string), u64(2n ** 33n)),
            /metadata array of 2\^33 strings is larger than the file/],
        [ggufFile({entries: 1n}, u64(2n ** 50n), Buffer.alloc(16)), /a metadata key of 2\^50 bytes is larger than the file/],
        [ggufFile({entries: 1n}, ggufString("x"), u32(77), u32(0)), /metadata value type 77, which GGUF does not define/],
        [ggufFile({entries: 1n}, ggufString("x"), u32(ggufType.array), u32(ggufType.array), u64(1n)), /array of arrays/],
        [Buffer.from("GGML0000000000000000000000"), /it does not start with "GGUF"/],
        [Buffer.concat([Buffer.from("GGUF"), u32(1), u64(0n), u64(0n)]), /GGUF version 1 /]
    ];
    for (const [bytes, reason] of refusals) {
        const started = performance.now();
        await assert.rejects(checkGgufHeader(written("crafted.gguf", bytes)), {message: reason});
        assert.ok(performance.now() - started < 100, `${reason} took ${performance.now() - started} ms`);
    }
});

test("a real model cut short is refused where its header runs out", async () => {
    const whole = fs.readFileSync(models.chatml);
    await assert.rejects(checkGgufHeader(written("cut.gguf", whole.subarray(0, 4000))), {message: /is larger than the file$/});
});
