import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {downloadModel, isDownloadableModelUri, singleFileUrl} from "../../../src/engine/models/downloadModel.js";
import {servedFile, type ServedFile} from "../../helpers/servedFile.js";

describe("downloadModel: https only, and a SHA-256 checked while the file is written", () => {
    let served: ServedFile;
    let server: ServedFile["server"];
    let digest = "";

    before(async () => {
        // 300 KB: several chunks.
        served = await servedFile({name: "weights.gguf", bytes: 300_000, prefix: "lr-verified-"});
        ({server, digest} = served);
    });

    after(() => served.close());

    const folder = (name: string) => path.join(served.root, name);

    it("refuses plain http to a remote host before any network use; loopback http and https pass the shape check", async () => {
        assert.equal(isDownloadableModelUri("http://example.com/model.gguf"), false);
        assert.equal(isDownloadableModelUri("http://localhost:8080/model.gguf"), true);
        assert.equal(isDownloadableModelUri("http://[::1]:8080/model.gguf"), true);
        assert.equal(isDownloadableModelUri("https://example.com/model.gguf"), true);
        assert.equal(isDownloadableModelUri("ftp://example.com/model.gguf"), false);
        const plain = "http://example.com/model.gguf";
        await assert.rejects(downloadModel({uri: plain, directory: folder("refused")}), /Refusing to download http:\/\/example\.com/);
        await assert.rejects(downloadModel({uri: plain, directory: folder("refused"), sha256: digest}), /Refusing to download/);
        assert.equal(fs.existsSync(folder("refused")), false, "nothing written");
    });

    it("a matching SHA-256: the file appears under its name, byte for byte, with progress", async () => {
        const seen: number[] = [];
        const entry = await downloadModel({
            uri: server.url, directory: folder("match"), sha256: digest.toUpperCase(),
            onProgress: (progress) => seen.push(progress.downloadedBytes)
        });
        assert.equal(entry, path.join(folder("match"), "weights.gguf"));
        assert.deepEqual(fs.readFileSync(entry), fs.readFileSync(served.file));
        assert.deepEqual(fs.readdirSync(folder("match")), ["weights.gguf"], "no temporary file left");
        assert.equal(seen.at(-1), 300_000);
        const requests = server.requests.length;
        const again = await downloadModel({uri: server.url, directory: folder("match"), sha256: digest});
        assert.equal(again, entry, "already there with that hash");
        assert.equal(server.requests.length, requests, "not fetched again");
    });

    it("a mismatch: rejects, says so, and leaves no file at all", async () => {
        const wrong = "0".repeat(64);
        await assert.rejects(downloadModel({uri: server.url, directory: folder("mismatch"), sha256: wrong}),
            new RegExp(`Checksum mismatch for weights\\.gguf: its SHA-256 is ${digest}, expected ${wrong}\\. The download was deleted\\.`));
        assert.deepEqual(fs.readdirSync(folder("mismatch")), [], "the partial file is deleted");
    });

    it("a cancel mid-way rejects with the reason and leaves no file", async () => {
        server.setRate(100_000);
        try {
            const controller = new AbortController();
            const download = downloadModel({
                uri: server.url, directory: folder("cancel"), sha256: digest, signal: controller.signal,
                onProgress: ({downloadedBytes}) => {
                    if (downloadedBytes >= 50_000)
                        controller.abort(new Error("cancelled by the test"));
                }
            });
            await assert.rejects(download, /cancelled by the test/);
            assert.deepEqual(fs.readdirSync(folder("cancel")), []);
        } finally {
            server.setRate(0);
        }
    });

    it("a 404 rejects and writes nothing", async () => {
        const missing = server.url.replace("weights.gguf", "missing.gguf");
        await assert.rejects(downloadModel({uri: missing, directory: folder("missing"), sha256: digest}), /answered 404/);
        assert.deepEqual(fs.readdirSync(folder("missing")), []);
    });

    it("a checksum needs a URI naming one file", async () => {
        assert.equal(singleFileUrl("hf:user/repo/sub/model.gguf#abc"),
            "https://huggingface.co/user/repo/resolve/abc/sub/model.gguf?download=true");
        assert.equal(singleFileUrl("hf:user/repo/model.gguf"), "https://huggingface.co/user/repo/resolve/main/model.gguf?download=true");
        assert.equal(singleFileUrl("hf:user/repo:Q4_K_M"), null);
        assert.equal(singleFileUrl("https://example.com/model-00001-of-00002.gguf"), null);
        assert.equal(singleFileUrl("https://example.com/model.bin"), null);
        assert.equal(singleFileUrl("http://example.com/model.gguf"), null);
        await assert.rejects(downloadModel({uri: "hf:user/repo:Q4_K_M", directory: folder("quant"), sha256: digest}),
            /a SHA-256 checks one file/);
        await assert.rejects(downloadModel({uri: server.url, directory: folder("bad-hash"), sha256: "xyz"}), /not 64 hex digits/);
    });
});
