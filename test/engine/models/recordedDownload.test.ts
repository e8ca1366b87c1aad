import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {fileSha256} from "../../../src/engine/models/fileSha256.js";
import {downloadRecorded, modelParts} from "../../../src/engine/models/recordedDownload.js";
import {servedFile, sha256Of, type ServedFile} from "../../helpers/servedFile.js";

describe("downloadRecorded: a first download records its SHA-256, a later one is held to it", () => {
    let served: ServedFile;
    let server: ServedFile["server"];
    let digest = "";

    before(async () => {
        served = await servedFile({name: "weights.gguf", prefix: "lr-recorded-"});
        ({server, digest} = served);
    });

    after(() => served.close());

    const folder = (name: string) => path.join(served.root, name);

    it("a first download (nothing recorded, no pin) keeps the file and returns its SHA-256, hashed as it was written", async () => {
        const download = await downloadRecorded({uri: server.url, directory: folder("first"), recorded: null});
        assert.equal(download.path, path.join(folder("first"), "weights.gguf"));
        assert.deepEqual(download.hashes, {"weights.gguf": digest});
        assert.deepEqual(fs.readdirSync(folder("first")), ["weights.gguf"]);
    });

    it("a later download that matches the record is kept; one whose file changed on the server is rejected and removed", async () => {
        const again = await downloadRecorded({uri: server.url, directory: folder("later"), recorded: {"weights.gguf": digest}});
        assert.deepEqual(again.hashes, {"weights.gguf": digest});
        const original = fs.readFileSync(served.file);
        // The publisher (or someone between) swaps the file for another of the same size.
        fs.writeFileSync(served.file, crypto.randomBytes(original.length));
        try {
            const swapped = sha256Of(served.file);
            const later = downloadRecorded({uri: server.url, directory: folder("swapped"), recorded: {"weights.gguf": digest}});
            await assert.rejects(later, new RegExp(`Checksum mismatch for weights\\.gguf: its SHA-256 is ${swapped}, expected ${digest}\\. `
                + "The download was deleted\\. The expected SHA-256 was recorded when this model was first downloaded"));
            assert.deepEqual(fs.readdirSync(folder("swapped")), [], "nothing is left under the model's name, nor a partial file");
        } finally {
            fs.writeFileSync(served.file, original);
        }
        // An entry's own pin wins over a record, and its mismatch says nothing of a first download.
        const pinned = "1".repeat(64);
        const download = downloadRecorded({
            uri: server.url, directory: folder("pinned"), sha256: pinned, recorded: {"weights.gguf": digest}
        });
        await assert.rejects(download,
            (error: Error) => error.message.includes(`expected ${pinned}`) && !error.message.includes("first downloaded"));
    });

    it("fileSha256 (a worker thread's) gives the file's SHA-256; a missing file or a cancel rejects", async () => {
        assert.equal(await fileSha256(served.file), digest);
        await assert.rejects(fileSha256(path.join(served.root, "missing.gguf")), /ENOENT/);
        const controller = new AbortController();
        controller.abort(new Error("stopped"));
        await assert.rejects(fileSha256(served.file, controller.signal), /stopped/);
    });

    it("a split model's files are all its parts", () => {
        assert.deepEqual(modelParts("/m/model.gguf"), ["/m/model.gguf"]);
        assert.deepEqual(modelParts("/m/big-00001-of-00003.gguf"), ["/m/big-00001-of-00003.gguf", "/m/big-00002-of-00003.gguf",
            "/m/big-00003-of-00003.gguf"]);
    });
});
