import {createHash} from "node:crypto";
import {createWriteStream} from "node:fs";
import {Readable, Transform} from "node:stream";
import {pipeline} from "node:stream/promises";
import type {ReadableStream as WebReadableStream} from "node:stream/web";

/**
 * Writes a fetched body to `file`, hashed as the bytes pass, chunk by chunk, so the file is never read a second time
 * (a model's download, a GPU build's tarball). Returns the digest in `encoding`; `onProgress` hears the bytes so far
 * against the response's Content-Length (0 when it sent none).
 */
export async function writeHashed(response: Response, file: string, options: {
    algorithm: "sha256" | "sha512", encoding: "hex" | "base64", flags?: string, signal?: AbortSignal,
    onProgress?: (downloadedBytes: number, totalBytes: number) => void
}): Promise<string> {
    const totalBytes = Number(response.headers.get("content-length") ?? 0) || 0;
    const hash = createHash(options.algorithm);
    let downloadedBytes = 0;
    const tap = new Transform({
        transform(chunk: Buffer, _encoding, done) {
            hash.update(chunk);
            downloadedBytes += chunk.length;
            options.onProgress?.(downloadedBytes, totalBytes);
            done(null, chunk);
        }
    });
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), tap,
        createWriteStream(file, options.flags == null ? undefined : {flags: options.flags}), {signal: options.signal});
    return hash.digest(options.encoding);
}
