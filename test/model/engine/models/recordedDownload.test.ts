import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {downloadRecorded} from "../../../../src/engine/models/recordedDownload.js";
import {LoopbackFileServer} from "../../../helpers/LoopbackFileServer.js";
import {models} from "../../../helpers/paths.js";

// A URI that names no single file (here a split model's first part; on Hugging Face, `hf:<user>/<repo>:<quant>`)
// goes through node-llama-cpp's downloader: its files are hashed once written, and checked against a record then.
describe("downloadRecorded through node-llama-cpp's downloader (a split-named copy of the shared model on 127.0.0.1)", () => {
    let root = "";
    let served = "";
    let digest = "";
    let server: LoopbackFileServer;

    before(async () => {
        root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-recorded-split-"));
        served = path.join(root, "served", "stories-00001-of-00001.gguf");
        fs.mkdirSync(path.dirname(served));
        fs.copyFileSync(models.chatml, served);
        digest = crypto.createHash("sha256").update(fs.readFileSync(served)).digest("hex");
        server = new LoopbackFileServer({file: served});
        await server.start();
    });

    after(async () => {
        await server.stop();
        fs.rmSync(root, {recursive: true, force: true});
    });

    it("records every part's SHA-256 at the first download, and deletes a later download that differs from it", async () => {
        const first = await downloadRecorded({uri: server.url, directory: path.join(root, "first"), recorded: null});
        assert.deepEqual(first.hashes, {"stories-00001-of-00001.gguf": digest});
        const wrong = {"stories-00001-of-00001.gguf": "0".repeat(64)};
        const directory = path.join(root, "later");
        await assert.rejects(downloadRecorded({uri: server.url, directory, recorded: wrong}),
            new RegExp(`Checksum mismatch for stories-00001-of-00001\\.gguf: its SHA-256 is ${digest}, expected 0{64}\\. `
                + "The download was deleted\\. The expected SHA-256 was recorded when this model was first downloaded"));
        assert.deepEqual(fs.readdirSync(directory).filter((name) => name.endsWith(".gguf")), []);
    });
});
