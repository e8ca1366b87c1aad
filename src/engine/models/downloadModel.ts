import {randomBytes} from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import {fileSha256} from "./fileSha256.js";
import {loadNodeLlamaCpp} from "./loadBinding.js";
import {writeHashed} from "./hashedDownload.js";

export type DownloadProgress = {downloadedBytes: number, totalBytes: number};

export type DownloadModelOptions = {
    /** An `hf:<user>/<model>[:<quant>]` or `hf:<user>/<model>/<file>.gguf[#<revision>]` URI, or an https URL of a `.gguf` file. */
    uri: string,
    /** Folder the model file (or its split parts) is written to. */
    directory: string,
    /**
     * The file's SHA-256 (hex). With it the download is one file, hashed as it is written under a temporary name and
     * renamed to its own only when the hash matches: a file that differs is deleted, never left to be loaded.
     */
    sha256?: string | null,
    onProgress?: (progress: DownloadProgress) => void,
    signal?: AbortSignal
};

/** Hosts whose plain-http URLs are accepted: see `isAllowedDownloadUrl`. */
const loopbackHosts = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Downloads a GGUF model. With a SHA-256 it streams the one file itself (see `downloadVerified`); without one it uses
 * node-llama-cpp's downloader (split files, resumable temp files, `hf:` URIs), so that faces need not touch the
 * native package. Resolves to the entry file to load. A file already present with the remote size (with a SHA-256:
 * with that hash) is not downloaded again. A URI `isDownloadableModelUri` refuses is refused before any network use.
 */
export async function downloadModel(options: DownloadModelOptions): Promise<string> {
    if (!isDownloadableModelUri(options.uri))
        throw new Error(`Refusing to download ${options.uri}: give an hf: URI or an https URL `
            + "(plain http only from this machine's loopback address).");
    if (options.sha256 != null)
        return (await downloadHashedFile(options)).path;
    const {createModelDownloader} = await loadNodeLlamaCpp();
    const downloader = await createModelDownloader({
        modelUri: options.uri,
        dirPath: options.directory,
        showCliProgress: false,
        deleteTempFileOnCancel: true,
        skipExisting: true,
        onProgress: ({downloadedSize, totalSize}) => options.onProgress?.({downloadedBytes: downloadedSize, totalBytes: totalSize})
    });
    const entryPath = await downloader.download({signal: options.signal});
    // node-llama-cpp 3.21.1 resolves with the entry path even when the signal cancelled the download (its
    // file downloader closes quietly): the path then names no file, and a caller would try to load it.
    if (options.signal?.aborted)
        throw options.signal.reason;
    return entryPath;
}

/** A quick shape check for what `downloadModel` accepts, so a face can refuse a typo before any network use. */
export function isDownloadableModelUri(uri: string): boolean {
    if (/^hf:[^/\s]+\/[^\s]+$/.test(uri))
        return true;
    try {
        return isAllowedDownloadUrl(new URL(uri));
    } catch {
        return false;
    }
}

/**
 * https only, so that what is downloaded and then loaded into this process cannot be swapped on the way. Plain http
 * is accepted for loopback hosts alone: the tests and the editor end-to-end run serve models from 127.0.0.1
 * (test/helpers/LoopbackFileServer.ts), and loopback traffic never crosses a network where it could be altered.
 */
function isAllowedDownloadUrl(url: URL): boolean {
    return url.protocol === "https:" || (url.protocol === "http:" && loopbackHosts.has(url.hostname));
}

/**
 * The URL of the one file a URI names, for a download that is checked against a SHA-256 (one hash, one file): an
 * https (or loopback http) URL of a `.gguf` file, or `hf:<user>/<repo>/<path>.gguf[#<revision>]` (Hugging Face's
 * `resolve` URL, of that revision or of main). Null for a URI that names no single file: `hf:<user>/<repo>:<quant>`
 * (resolved on Hugging Face at download time) or one part of a split model.
 */
export function singleFileUrl(uri: string): string | null {
    const hf = /^hf:([^/\s#]+)\/([^/\s#:]+)\/([^\s#]+\.gguf)(?:#([^\s#]+))?$/i.exec(uri);
    const url = hf != null ? huggingFaceUrl(hf[1]!, hf[2]!, hf[3]!, hf[4] ?? "main") : uri;
    let parsed: URL;
    try {
        parsed = new URL(url);
    } catch {
        return null;
    }
    const name = fileNameOf(parsed);
    return isAllowedDownloadUrl(parsed) && name != null && !/-\d{5}-of-\d{5}\.gguf$/i.test(name) ? url : null;
}

/** Hugging Face's download URL of one file of a repository, at a revision. */
function huggingFaceUrl(user: string, repo: string, file: string, revision: string): string {
    const [owner, name, ref] = [user, repo, revision].map(encodeURIComponent);
    return `https://huggingface.co/${owner}/${name}/resolve/${ref}/${file.split("/").map(encodeURIComponent).join("/")}?download=true`;
}

/** The file name a URL's last path segment gives, when it is a plain `.gguf` name (no folder, nothing hidden). */
function fileNameOf(url: URL): string | null {
    let name: string;
    try {
        name = decodeURIComponent(url.pathname.split("/").pop() ?? "");
    } catch {
        return null;
    }
    return /^[^/\\\0]+\.gguf$/i.test(name) && !name.startsWith(".") ? name : null;
}

/** A file `downloadHashedFile` wrote, and its SHA-256 (lowercase hex). */
export type HashedFile = {path: string, sha256: string};

/**
 * One file (`singleFileUrl`), hashed while its bytes are written to a temporary name beside it (which the models
 * list, .gguf files only, never shows). With `options.sha256` it is renamed to the model's name only once the hash
 * matches, and a file already there with that hash is not fetched again; without one, whatever arrives is kept and
 * its hash returned (what a first download records). On a mismatch, an error or a cancel the temporary file is
 * deleted, so no unverified file is ever left under a model's name.
 */
export async function downloadHashedFile(options: DownloadModelOptions): Promise<HashedFile> {
    const expected = options.sha256 == null ? null : options.sha256.trim().toLowerCase();
    if (expected != null && !/^[0-9a-f]{64}$/.test(expected))
        throw new Error(`${options.uri}: the SHA-256 ${JSON.stringify(options.sha256)} is not 64 hex digits.`);
    const url = singleFileUrl(options.uri);
    if (url == null)
        throw new Error(`${options.uri}: a SHA-256 checks one file; give an https URL or hf:<user>/<repo>/<file>.gguf URI `
            + "of a single (not split) .gguf file.");
    const target = path.join(options.directory, fileNameOf(new URL(url))!);
    if (expected != null && await fileSha256(target, options.signal).catch(() => null) === expected)
        return {path: target, sha256: expected};
    options.signal?.throwIfAborted();
    await fs.mkdir(options.directory, {recursive: true});
    const partial = `${target}.${randomBytes(6).toString("hex")}.partial`;
    try {
        const response = await fetch(url, {signal: options.signal});
        // A redirect (Hugging Face sends one to its CDN) must not lead to plain http either.
        if (!isAllowedDownloadUrl(new URL(response.url || url)))
            throw new Error(`${options.uri}: redirected to ${response.url}, which is not https.`);
        if (!response.ok || response.body == null)
            throw new Error(`${options.uri}: the server answered ${response.status} ${response.statusText}.`);
        const actual = await writeHashed(response, partial, {
            algorithm: "sha256", encoding: "hex", flags: "wx", signal: options.signal,
            onProgress: (downloadedBytes, totalBytes) => options.onProgress?.({downloadedBytes, totalBytes})
        });
        if (expected != null && actual !== expected)
            throw new Error(`Checksum mismatch for ${path.basename(target)}: its SHA-256 is ${actual}, expected ${expected}. `
                + "The download was deleted.");
        await fs.rename(partial, target);
        return {path: target, sha256: actual};
    } catch (error) {
        await fs.rm(partial, {force: true});
        throw options.signal?.aborted ? options.signal.reason : error;
    }
}
