import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {downloadRecorded} from "../../../../src/engine/models/recordedDownload.js";
import {servedFile, type ServedFile} from "../../../helpers/servedFile.js";
import {models} from "../../../helpers/paths.js";

// A URI that names no single file (here a split model's first part; on Hugging Face, `hf:<user>/<repo>:<quant>`)
// goes through node-llama-cpp's downloader: its files are hashed once written, and checked against a record then.
describe("downloadRecorded through node-llama-cpp's downloader (a split-named copy of the shared model on 127.0.0.1)", () => {
    let served: ServedFile;
    let server: ServedFile["server"];
    let digest = "";

    before(async () => {
        served = await servedFile({name: "stories-00001-of-00001.gguf", copyOf: models.chatml, prefix: "lr-recorded-split-"});
        ({server, digest} = served);
    });

    after(() => served.close());

    it("records every part's SHA-256 at the first download, and deletes a later download that differs from it", async () => {
        const first = await downloadRecorded({uri: server.url, directory: path.join(served.root, "first"), recorded: null});
        assert.deepEqual(first.hashes, {"stories-00001-of-00001.gguf": digest});
        const wrong = {"stories-00001-of-00001.gguf": "0".repeat(64)};
        const directory = path.join(served.root, "later");
        await assert.rejects(downloadRecorded({uri: server.url, directory, recorded: wrong}),
            new RegExp(`Checksum mismatch for stories-00001-of-00001\\.gguf: its SHA-256 is ${digest}, expected 0{64}\\. `
                + "The download was deleted\\. The expected SHA-256 was recorded when this model was first downloaded"));
        assert.deepEqual(fs.readdirSync(directory).filter((name) => name.endsWith(".gguf")), []);
    });
});
