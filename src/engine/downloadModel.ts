import {loadNodeLlamaCpp} from "./loadBinding.js";

export type DownloadProgress = {downloadedBytes: number, totalBytes: number};

export type DownloadModelOptions = {
    /** An `hf:<user>/<model>[:<quant>]` URI, or an http(s) URL of a `.gguf` file. */
    uri: string,
    /** Folder the model file (or its split parts) is written to. */
    directory: string,
    onProgress?: (progress: DownloadProgress) => void,
    signal?: AbortSignal
};

/**
 * Downloads a GGUF model with node-llama-cpp's downloader (split files, resumable temp files, `hf:` URIs),
 * so that faces need not touch the native package. Resolves to the entry file to load.
 * A file already present with the remote size is not downloaded again.
 */
export async function downloadModel(options: DownloadModelOptions): Promise<string> {
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
        const url = new URL(uri);
        return url.protocol === "https:" || url.protocol === "http:";
    } catch {
        return false;
    }
}
