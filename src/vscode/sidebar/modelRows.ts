import type {ModelBackend} from "../../engine/types.js";
import {backendLabel, describeBackend} from "../../host/backendText.js";
import {formatBytes} from "../models/formatBytes.js";
import type {ModelFile} from "../models/listModelFiles.js";
import {baseName} from "./serverRows.js";
import type {SidebarRow} from "./SidebarRow.js";

export type ModelsFacts = {
    /** Most recent first (Load Model…'s list). */
    recent: readonly string[],
    /** .gguf files in the download folder. */
    downloaded: readonly ModelFile[],
    loadedPath: string | null,
    /** Where the loaded model computes; absent: not said. */
    loadedBackend?: ModelBackend | null,
    /** Being loaded now. */
    loadingPath: string | null
};

/**
 * The Models view: the loaded model first, then recent and downloaded files, each once. Downloaded files can be
 * deleted (`model.downloaded`); a recent file elsewhere on disk is only forgotten (`model.recent`): the view never
 * deletes a file it did not download.
 */
export function modelRows(facts: ModelsFacts): SidebarRow[] {
    const sizes = new Map(facts.downloaded.map((file) => [file.path, file.bytes]));
    const downloaded = new Set(facts.downloaded.map((file) => file.path));
    const order = [
        ...new Set([...(facts.loadedPath != null ? [facts.loadedPath] : []), ...facts.recent, ...facts.downloaded.map((file) => file.path)])
    ];
    return order.map((modelPath): SidebarRow => {
        const loaded = modelPath === facts.loadedPath;
        const loading = modelPath === facts.loadingPath;
        const isDownloaded = downloaded.has(modelPath);
        const size = sizes.get(modelPath);
        const loadedOn = facts.loadedBackend != null ? `loaded on ${backendLabel(facts.loadedBackend)}` : "loaded";
        const parts = [
            loaded ? loadedOn : loading ? "loading…" : null, isDownloaded ? "downloaded" : "recent", size != null ? formatBytes(size) : null
        ];
        return {
            id: `model:${modelPath}`,
            label: baseName(modelPath),
            description: parts.filter((part) => part != null).join(" · "),
            tooltip: loaded && facts.loadedBackend != null ? `${modelPath}\non ${describeBackend(facts.loadedBackend)}` : modelPath,
            icon: loaded ? "pass-filled" : loading ? "loading~spin" : isDownloaded ? "cloud-download" : "history",
            contextValue: `model.${isDownloaded ? "downloaded" : "recent"}${loaded ? ".loaded" : ""}`,
            target: modelPath
        };
    });
}
