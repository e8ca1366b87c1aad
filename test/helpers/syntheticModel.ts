import {execFile} from "node:child_process";
import {createHash} from "node:crypto";
import {createReadStream} from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {promisify} from "node:util";
import {repoRoot, sharedDir} from "./paths.js";

/** The synthetic models tests use, with the sha256 the shared models README gives for them. */
const shapes = {
    "smollm2-135m": "5014e709d38803a10ab633c73f9ff2b8209913a9bc7e7b19ae4a6bbc2d4c7400",
    "qwen2.5-0.5b": "2569238157cae840c90d41c7444e341b64cdf49cae8247368903ae6273d6d916",
    // Two layers of width 64: with a real vocabulary (`vocab`), that vocabulary's costs (logprobs, sampling) in seconds.
    "tiny-64": "befa0dac0e540c085df7d6ca2be1fb35caa9502529ae50ee8b23c32f1ca57444"
} as const;

export type SyntheticShape = keyof typeof shapes;

/** Where generated models are kept between runs: outside the repository (113 MB and 381 MB), shared by every checkout. */
export const syntheticModelDir = path.join(os.homedir(), ".cache/local-responses/models");

/**
 * A full-size synthetic model (a real model's cost per token, noise for text: timings only, never output checks),
 * generated once with `../shared/models/make-synthetic-model.mjs` and checked against its known sha256. A file that
 * does not match is generated again. Generation writes a temporary file and renames it, so concurrent runs are safe.
 *
 * With `vocab` (`qwen2`, `gemma-4`, …: a real model's tokenizer and chat template, read from the llama.cpp source
 * this checkout's node-llama-cpp ships) the file is kept as generated, unchecked: its bytes depend on that source,
 * which a node-llama-cpp upgrade may change, so no sha256 can be pinned for it.
 */
export async function syntheticModel(shape: SyntheticShape = "smollm2-135m", vocab?: string,
    pooling?: "mean" | "cls" | "last"): Promise<string> {
    const suffix = `${vocab == null ? "" : `-${vocab}`}${pooling == null ? "" : `-pooling-${pooling}`}`;
    const file = path.join(syntheticModelDir, `${shape}${suffix}-synthetic.gguf`);
    // An embedding model (`pooling`) is kept unchecked too: no sha256 of it is published.
    const expected = vocab == null && pooling == null ? shapes[shape] : null;
    if (expected == null ? await fs.access(file).then(() => true, () => false) : await sha256(file).catch(() => null) === expected)
        return file;
    await fs.mkdir(syntheticModelDir, {recursive: true});
    const partial = `${file}.${process.pid}.partial`;
    const bundle = path.join(repoRoot, "node_modules/node-llama-cpp/llama/gitRelease.bundle");
    await promisify(execFile)(process.execPath, [
        path.join(sharedDir, "models/make-synthetic-model.mjs"), "--shape", shape, "--out", partial,
        ...(vocab == null ? [] : ["--vocab", vocab, "--bundle", bundle]),
        ...(pooling == null ? [] : ["--pooling", pooling])
    ], {maxBuffer: 1 << 24});
    const written = expected == null ? null : await sha256(partial);
    if (written !== expected) {
        await fs.rm(partial, {force: true});
        throw new Error(`make-synthetic-model.mjs wrote ${shape} with sha256 ${written}, expected ${expected}`);
    }
    await fs.rename(partial, file);
    return file;
}

function sha256(file: string): Promise<string> {
    return new Promise((resolve, reject) => {
        const hash = createHash("sha256");
        createReadStream(file).on("error", reject).on("data", (chunk) => hash.update(chunk)).on("end", () => resolve(hash.digest("hex")));
    });
}
