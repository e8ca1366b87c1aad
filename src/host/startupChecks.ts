import fs from "node:fs";
import path from "node:path";
import {fileURLToPath} from "node:url";
import type {ModelFit} from "../engine/models/modelFit.js";

/**
 * The headless CLI's start-up checks, each failing with one line that says what to do: the errors a newcomer meets
 * first (no model, a file that is not a model, a model too big for the machine, a port in use). Pure or reading
 * only what they are given, so that each message is tested on its own (test/host/startupChecks.test.ts).
 */

/** The demo model's file name, in `models/` at the top of the repository and of the CLI package. */
export const demoModelFile = "stories260K.gguf";

/**
 * The demo model that travels with the project (models/README.md), served when no model is named. Found from this
 * code's folder: dist/ when bundled (dist/cli.js), src/host/ when run from source.
 */
export function demoModelPath(): string {
    const here = typeof __dirname === "string" ? __dirname : path.dirname(fileURLToPath(import.meta.url));
    for (let dir = here, up = 0; up < 4; dir = path.dirname(dir), up++) {
        const candidate = path.join(dir, "models", demoModelFile);
        if (fs.existsSync(candidate))
            return candidate;
    }
    return path.join(here, "..", "models", demoModelFile);
}

/** What a missing or unreadable model file needs; null when `file` is a GGUF file. */
export function modelFileProblem(file: string): string | null {
    let stat: fs.Stats;
    try {
        stat = fs.statSync(file);
    } catch {
        return `model file not found: ${file} (give --model the path of a .gguf file, `
            + "or leave --model out to serve the bundled demo model)";
    }
    if (!stat.isFile())
        return `model file not found: ${file} is a ${stat.isDirectory() ? "folder" : "special file"} `
            + "(give --model the path of a .gguf file)";
    const head = Buffer.alloc(4);
    const fd = fs.openSync(file, "r");
    try {
        fs.readSync(fd, head, 0, 4, 0);
    } finally {
        fs.closeSync(fd);
    }
    // Every GGUF file (llama.cpp's model format) opens with these four bytes.
    if (head.toString("latin1") !== "GGUF")
        return `${file} is not a GGUF model (it does not start with 'GGUF'): give --model a .gguf file, e.g. a GGUF build of the `
            + `model from Hugging Face (safetensors, .bin and .pth files need converting with llama.cpp first)`;
    return null;
}

const gb = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GB`;

/** One line refusing a model that does not fit the machine's memory when computing on the CPU; null when it fits. */
export function memoryProblem(file: string, fit: ModelFit): string | null {
    if (fit.verdict !== "no")
        return null;
    return `${path.basename(file)} needs about ${gb(fit.requiredBytes)} of memory (${gb(fit.modelRamBytes)} weights + `
        + `${gb(fit.contextRamBytes)} for ${fit.sequences} × ${fit.contextSize} tokens of context), this machine has `
        + `${gb(fit.availableBytes)} available of ${gb(fit.totalBytes)}: use a smaller model or quantization, or lower `
        + "--context-size / --parallel";
}

/** One line for a server that cannot listen, saying what to change. */
export function listenProblem(error: NodeJS.ErrnoException, host: string, port: number): string {
    if (error.code === "EADDRINUSE")
        return `port ${port} on ${host} is already in use (another server, or another local-responses?): `
            + `pass --port N for another port, or --port 0 for any free one`;
    if (error.code === "EACCES")
        return `not allowed to listen on ${host}:${port} (ports below 1024 need privileges): pass --port N with N of 1024 or more`;
    if (error.code === "EADDRNOTAVAIL")
        return `${host} is not an address of this machine: pass --host 127.0.0.1 (the default)`;
    return `cannot listen on ${host}:${port}: ${error.message}`;
}
