import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, test} from "node:test";
import {estimateModelFit} from "../../../../src/engine/models/modelFit.js";
import {ModelFitWorker} from "../../../../src/engine/models/ModelFitWorker.js";
import {hugeArrayGguf, manyStringsGguf} from "../../../helpers/craftedGguf.js";
import {models} from "../../../helpers/paths.js";

/**
 * node-llama-cpp's header read in `ModelFitWorker`: the same fit as in place for a real model, and a header that passes
 * the count check but needs more heap or time than the worker has fails that read with one line, never this process.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-fit-worker-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

const options = {contextSize: null, sequences: 1, availableBytes: 8 * 1024 ** 3};

test("a real model's fit is the one estimateModelFit gives in place; reads after a failed one get a fresh worker", async () => {
    const worker = new ModelFitWorker();
    const crafted = path.join(root, "crafted.gguf");
    fs.writeFileSync(crafted, hugeArrayGguf());
    const [fit, failed, again] = await Promise.allSettled([
        worker.estimate({uri: models.chatml, ...options}),
        worker.estimate({uri: crafted, ...options}),
        worker.estimate({uri: models.qwen, ...options})
    ]);
    const inPlace = await estimateModelFit({uri: models.chatml, ...options});
    assert.deepEqual(fit.status === "fulfilled" && {...fit.value, totalBytes: 0}, {...inPlace, totalBytes: 0});
    assert.equal(failed.status === "rejected" && (failed.reason as Error).message,
        "not a GGUF file we can read: metadata array of 2^40 items is larger than the file");
    assert.equal(again.status === "fulfilled" && again.value.parameters, inPlace.parameters);
});

test("a valid header larger than the worker's heap fails that read with one line, and this process's heap stays as it was", async () => {
    const large = path.join(root, "large.gguf");
    fs.writeFileSync(large, manyStringsGguf(1_500_000));
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    await assert.rejects(new ModelFitWorker({heapMb: 64, timeoutMs: 60_000}).estimate({uri: large, ...options}),
        {message: "reading its GGUF header needed over 64 MB of memory"});
    assert.ok(process.memoryUsage().heapUsed - heapBefore < 32 * 2 ** 20);
    assert.ok(performance.now() - started < 30_000);
});

test("a read past the time limit is stopped with one line", async () => {
    const large = path.join(root, "slow.gguf");
    fs.writeFileSync(large, manyStringsGguf(300_000));
    await assert.rejects(new ModelFitWorker({heapMb: 256, timeoutMs: 50}).estimate({uri: large, ...options}),
        {message: "reading its GGUF header took over 0.05 s"});
});
