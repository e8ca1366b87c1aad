import {Worker} from "node:worker_threads";

/**
 * The hasher a worker thread runs: read the file as a stream and hash it there. It is source, not a file, so that it
 * runs alike from the TypeScript sources (tests) and the esbuild bundles (dist/), which have no file of their own for it.
 */
const hasherSource = `
const {parentPort, workerData} = require("node:worker_threads");
const {createHash} = require("node:crypto");
const {createReadStream} = require("node:fs");
const hash = createHash("sha256");
createReadStream(workerData.file, {highWaterMark: 1 << 20})
    .on("data", (chunk) => hash.update(chunk))
    .on("error", (error) => { throw error; })
    .on("end", () => parentPort.postMessage(hash.digest("hex")));
`;

/**
 * A file's SHA-256 in hex, read and hashed on a worker thread: model files are gigabytes, and hashing one on the
 * extension host's or the server's event loop would stall it for seconds. A signal stops the worker.
 */
export async function fileSha256(file: string, signal?: AbortSignal): Promise<string> {
    signal?.throwIfAborted();
    const worker = new Worker(hasherSource, {eval: true, workerData: {file}});
    try {
        return await new Promise<string>((resolve, reject) => {
            const abort = () => reject(signal!.reason as Error);
            signal?.addEventListener("abort", abort, {once: true});
            worker.once("message", (digest: string) => resolve(digest));
            worker.once("error", reject);
            worker.once("exit", (code) => reject(new Error(`hashing ${file} stopped (exit code ${code})`)));
        });
    } finally {
        void worker.terminate();
    }
}
