import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {downloadModel, isDownloadableModelUri, type DownloadProgress} from "../../../../src/engine/models/downloadModel.js";
import {LlamaEngine} from "../../../../src/engine/llama/LlamaEngine.js";
import {LoopbackFileServer} from "../../../helpers/LoopbackFileServer.js";
import {models} from "../../../helpers/paths.js";

const sha256 = (file: string) => crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");

// node-llama-cpp's downloader (ipull underneath) takes plain http URLs, loopback ones included: the shared
// model is served from 127.0.0.1, slowly enough to cancel it half way.
describe("downloadModel (node-llama-cpp's downloader, a model served on 127.0.0.1)", () => {
    const source = models.chatml;
    const size = fs.statSync(source).size;
    const server = new LoopbackFileServer({file: source});
    let directory = "";

    before(async () => {
        await server.start();
        directory = fs.mkdtempSync(path.join(os.tmpdir(), "lr-download-"));
    });

    after(async () => {
        await server.stop();
        fs.rmSync(directory, {recursive: true, force: true});
    });

    it("accepts the loopback http URL as a model URI", () => {
        assert.ok(isDownloadableModelUri(server.url));
        assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/stories260K\.gguf$/);
    });

    it("cancelled half way: rejects with the abort reason and leaves no file under the model's name", async () => {
        // ~300 KB/s: the 1.2 MB model takes ~4 s, and the cancel comes after a quarter.
        server.setRate(300_000);
        const controller = new AbortController();
        const seen: DownloadProgress[] = [];
        const download = downloadModel({
            uri: server.url, directory, signal: controller.signal,
            onProgress: (progress) => {
                seen.push(progress);
                if (progress.downloadedBytes >= size / 4)
                    controller.abort(new Error("cancelled by the test"));
            }
        });
        await assert.rejects(download, /cancelled by the test/);
        assert.ok(seen.length >= 2, "progress arrived before the cancel");
        const last = seen.at(-1)!;
        assert.equal(last.totalBytes, size);
        assert.ok(last.downloadedBytes < size, `cancelled at ${last.downloadedBytes} of ${size} bytes`);
        // The temp file is deleted on cancel; nothing in the folder is a complete-looking model.
        assert.equal(fs.existsSync(path.join(directory, "stories260K.gguf")), false);
        const left = fs.readdirSync(directory).filter((name) => fs.statSync(path.join(directory, name)).size >= size);
        assert.deepEqual(left, []);
    });

    it("downloads the whole file with progress up to its size, and the file loads", async () => {
        server.setRate(2_000_000);
        const seen: DownloadProgress[] = [];
        const entry = await downloadModel({uri: server.url, directory, onProgress: (progress) => seen.push(progress)});
        assert.equal(entry, path.join(directory, "stories260K.gguf"));
        assert.equal(sha256(entry), sha256(source), "byte for byte the served file");
        assert.ok(seen.length >= 2, `${seen.length} progress events`);
        assert.deepEqual(seen.map((progress) => progress.downloadedBytes),
            seen.map((progress) => progress.downloadedBytes).sort((a, b) => a - b), "progress only grows");
        assert.deepEqual(seen.at(-1), {downloadedBytes: size, totalBytes: size});

        const engine = new LlamaEngine({threads: 1, contextSize: 256, parallel: 1});
        try {
            const info = await engine.load(entry);
            assert.equal(info.id, "stories260K");
            const result = await engine.generate({
                turns: [{role: "user", text: "Once upon a time"}], maxOutputTokens: 4, sampling: {temperature: 0}
            });
            assert.equal(result.usage.outputTokens, 4);
        } finally {
            await engine.dispose();
        }
    });

    it("a file already present with the remote size is not fetched again", async () => {
        const before = server.requests.filter((request) => request.startsWith("GET bytes=")).length;
        const entry = await downloadModel({uri: server.url, directory});
        assert.equal(sha256(entry), sha256(source));
        assert.equal(server.requests.filter((request) => request.startsWith("GET bytes=")).length, before, "no ranged body request");
    });

    it("a URL that answers 404 rejects and writes nothing", async () => {
        const missing = server.url.replace(/stories260K\.gguf$/, "missing.gguf");
        const empty = fs.mkdtempSync(path.join(os.tmpdir(), "lr-download-missing-"));
        try {
            await assert.rejects(downloadModel({uri: missing, directory: empty}));
            assert.deepEqual(fs.readdirSync(empty).filter((name) => name.endsWith(".gguf")), []);
        } finally {
            fs.rmSync(empty, {recursive: true, force: true});
        }
    });
});
