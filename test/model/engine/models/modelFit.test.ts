import assert from "node:assert/strict";
import fs from "node:fs";
import {after, before, test} from "node:test";
import {estimateModelFit} from "../../../../src/engine/models/modelFit.js";
import {LoopbackFileServer} from "../../../helpers/LoopbackFileServer.js";
import {models} from "../../../helpers/paths.js";
import {syntheticModel} from "../../../helpers/syntheticModel.js";

/** Bytes a client read: the sum of its ranged GETs (an unranged GET reads the whole file). */
function bytesRead(server: LoopbackFileServer, size: number): number {
    return server.requests.filter((request) => request.startsWith("GET")).reduce((sum, request) => {
        const match = /bytes=(\d+)-(\d*)/.exec(request);
        return sum + (match == null ? size : (match[2] === "" ? size - 1 : Number(match[2])) - Number(match[1]) + 1);
    }, 0);
}

let synthetic: string;
let servers: {tiny: LoopbackFileServer, full: LoopbackFileServer};
before(async () => {
    synthetic = await syntheticModel();
    servers = {tiny: new LoopbackFileServer({file: models.chatml}), full: new LoopbackFileServer({file: synthetic})};
    await Promise.all([servers.tiny.start(), servers.full.start()]);
});
after(async () => {
    await Promise.all([servers.tiny.stop(), servers.full.stop()]);
});

test("fit over HTTP, from the header only: a full-size model's weights, its context memory, and the verdict", async () => {
    const size = fs.statSync(synthetic).size;
    const fit = await estimateModelFit({
        uri: servers.full.url, contextSize: 8192, sequences: 4, batchSize: 512, availableBytes: 8 * 1024 ** 3
    });
    assert.equal(fit.architecture, "llama");
    assert.equal(fit.trainContextSize, 8192);
    // The weights are the file, near enough; SmolLM2-135M's body has ~107M parameters besides the small vocabulary.
    assert.ok(Math.abs(fit.modelBytes - size) < size * 0.01, `${fit.modelBytes} vs ${size}`);
    assert.ok(fit.parameters > 100e6 && fit.parameters < 140e6, String(fit.parameters));
    // KV cache alone: 30 layers × (K+V) × 3 KV heads × 64 × 4 sequences × 8192 tokens × 2 bytes (f16) = 755 MB.
    const kvCache = 30 * 2 * 3 * 64 * 4 * 8192 * 2;
    assert.ok(fit.contextRamBytes >= kvCache && fit.contextRamBytes < kvCache * 1.5, `context ${fit.contextRamBytes}`);
    assert.equal(fit.requiredBytes, fit.modelRamBytes + fit.contextRamBytes);
    assert.equal(fit.verdict, "fits");
    const read = bytesRead(servers.full, size);
    assert.ok(read > 0 && read < size / 20, `read ${read} of ${size} bytes`);
});

test("the verdict follows the memory available and the context asked for", async () => {
    const small = await estimateModelFit({uri: servers.full.url, contextSize: 1024, sequences: 1, availableBytes: 8 * 1024 ** 3});
    const large = await estimateModelFit({uri: servers.full.url, contextSize: 8192, sequences: 4, availableBytes: 8 * 1024 ** 3});
    assert.ok(small.contextRamBytes * 8 < large.contextRamBytes, `${small.contextRamBytes} vs ${large.contextRamBytes}`);
    const needed = large.requiredBytes;
    assert.equal((await estimateModelFit({uri: servers.full.url, contextSize: 8192, sequences: 4, availableBytes: needed * 1.1})).verdict,
        "tight");
    assert.equal((await estimateModelFit({uri: servers.full.url, contextSize: 8192, sequences: 4, availableBytes: needed * 0.9})).verdict,
        "no");
});

test("the tiny shared model over HTTP and from disk agree; no context size means its trained one", async () => {
    const remote = await estimateModelFit({uri: servers.tiny.url, contextSize: null, sequences: 2});
    const local = await estimateModelFit({uri: models.chatml, contextSize: null, sequences: 2});
    assert.equal(remote.contextSize, 2048);
    assert.equal(remote.requiredBytes, local.requiredBytes);
    assert.ok(remote.availableBytes > 0 && remote.totalBytes >= remote.availableBytes);
});

test("with neither context nor sequences set, the estimate is for the engine's plan (planContext)", async () => {
    const planned = await estimateModelFit({uri: servers.full.url, contextSize: null, sequences: null, availableBytes: 8 * 1024 ** 3});
    assert.deepEqual([planned.trainContextSize, planned.contextSize, planned.sequences], [8192, 8192, 4]);
    const tiny = await estimateModelFit({uri: servers.tiny.url, contextSize: 16384, sequences: null});
    assert.deepEqual([tiny.contextSize, tiny.sequences], [16384, 2]);
});

test("a URL that is not a GGUF file is refused", async () => {
    await assert.rejects(estimateModelFit({uri: servers.tiny.url.replace(/[^/]+$/, "missing.gguf"), contextSize: null, sequences: 1}));
});
