import type {LibraryModel} from "../../engine/types.js";
import {backendLabel, describeBackend, partialOffloadNote} from "../../host/backendText.js";
import {formatBytes} from "../models/formatBytes.js";
import {formatDuration} from "../inspector/shared/timingFormat.js";
import type {SidebarRow} from "./SidebarRow.js";

/**
 * The Models view with a model library (`localResponses.models.directory`): every model with its state, the memory it
 * takes loaded (node-llama-cpp's estimate) and its requests; a loaded one can be unloaded (`libraryModel.loaded`), any
 * other loaded (`libraryModel`).
 */
export function libraryModelRows(models: readonly LibraryModel[]): SidebarRow[] {
    return models.map((model): SidebarRow => {
        const parts = [
            model.status === "loading" ? "loading…" : model.status,
            model.estimatedBytes == null ? formatBytes(model.fileBytes) : `~${formatBytes(model.estimatedBytes)} loaded`,
            model.quantization,
            model.info?.backend != null ? backendLabel(model.info.backend) : null,
            model.inFlight > 0 ? `${model.inFlight} request${model.inFlight === 1 ? "" : "s"}` : null
        ];
        return {
            id: `libraryModel:${model.id}`,
            label: model.id,
            description: parts.filter((part) => part != null).join(" · "),
            tooltip: [model.path, ...model.aliases.length > 0 ? [`also: ${model.aliases.join(", ")}`] : [],
                ...model.failure != null ? [`failed: ${model.failure}`] : [], ...backendLines(model), idleLine(model)].join("\n"),
            icon: model.status === "loaded" ? "pass-filled" : model.status === "loading" ? "loading~spin"
                : model.status === "failed" ? "error" : "circle-large-outline",
            contextValue: model.status === "loaded" ? "libraryModel.loaded" : "libraryModel",
            target: model.id
        };
    });
}

/** Its keep-alive: the last request's `keep_alive`, else the server's idle unload (`localResponses.models.idleUnloadSeconds`). */
function idleLine(model: LibraryModel): string {
    return model.keepAliveMs == null ? "stays loaded when idle" : `unloads after ${formatDuration(model.keepAliveMs)} idle`;
}

/** Where a loaded model computes, and what would fit it whole on the GPU where only part of it is there. */
function backendLines(model: LibraryModel): string[] {
    const info = model.info;
    if (info?.backend == null)
        return [];
    const note = partialOffloadNote(info, "its preset's contextSize");
    return [`on ${describeBackend(info.backend)}`, ...note != null ? [note] : []];
}
