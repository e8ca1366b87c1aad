import fs from "node:fs/promises";
import path from "node:path";
import {downloadHashedFile, downloadModel, singleFileUrl, type DownloadModelOptions} from "./downloadModel.js";
import {fileSha256} from "./fileSha256.js";

/** The SHA-256 (lowercase hex) of each file a model download wrote, by file name: what a first download records. */
export type ModelHashes = Record<string, string>;

export type RecordedDownloadOptions = DownloadModelOptions & {
    /**
     * The hashes recorded when this catalog entry was first downloaded; null for a first download (or a URI no entry
     * names). An entry whose publisher gives no checksum is trusted on first use, then held to what it was.
     */
    recorded: ModelHashes | null
};

export type RecordedDownload = {path: string, hashes: ModelHashes};

/** Said after a mismatch with a recorded hash: what the expected value was, and what the person may do. */
const recordedNote = "The expected SHA-256 was recorded when this model was first downloaded: the file served has changed since.";

/**
 * Downloads a model and returns every file's SHA-256, checked against `options.sha256` (a pin) or, failing one, the
 * hashes its first download recorded. One file a URL names is hashed while it is written (`downloadHashedFile`), so
 * a mismatch never reaches the model's name; a model node-llama-cpp resolves (`hf:<user>/<repo>:<quant>`, split
 * files) is hashed once written, on a worker thread, and deleted when a hash differs. Either way a mismatch
 * rejects with a message that names the file and both hashes.
 */
export async function downloadRecorded(options: RecordedDownloadOptions): Promise<RecordedDownload> {
    if (singleFileUrl(options.uri) != null) {
        const recorded = options.recorded == null ? null : Object.values(options.recorded);
        const sha256 = options.sha256 ?? (recorded?.length === 1 ? recorded[0] : null);
        try {
            const file = await downloadHashedFile({...options, sha256});
            return {path: file.path, hashes: {[path.basename(file.path)]: file.sha256}};
        } catch (error) {
            if (options.sha256 == null && sha256 != null && /^Checksum mismatch/.test((error as Error).message))
                throw new Error(`${(error as Error).message} ${recordedNote}`, {cause: error});
            throw error;
        }
    }
    const entry = await downloadModel(options);
    const files = modelParts(entry);
    const hashes: ModelHashes = {};
    for (const file of files)
        hashes[path.basename(file)] = await fileSha256(file, options.signal);
    const recorded = options.recorded;
    const wrong = recorded == null ? undefined
        : [...new Set([...Object.keys(hashes), ...Object.keys(recorded)])].find((name) => hashes[name] !== recorded[name]);
    if (wrong != null) {
        await Promise.all(files.map((file) => fs.rm(file, {force: true})));
        throw new Error(`Checksum mismatch for ${wrong}: its SHA-256 is ${hashes[wrong] ?? "(no such file now)"}, `
            + `expected ${recorded![wrong] ?? "(no such file then)"}. The download was deleted. ${recordedNote}`);
    }
    return {path: entry, hashes};
}

/** Every file of a model: its parts when the entry file is the first of a split model (`-00001-of-0000N.gguf`). */
export function modelParts(entry: string): string[] {
    const split = /^(.*-)00001-of-(\d{5})\.gguf$/i.exec(entry);
    if (split == null)
        return [entry];
    const count = Number(split[2]);
    return Array.from({length: count}, (_, index) => `${split[1]}${String(index + 1).padStart(5, "0")}-of-${split[2]}.gguf`);
}
