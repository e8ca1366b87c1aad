import type {ModelInfo} from "../../engine/types.js";
import {describeBackend, partialOffloadNote} from "../../host/backendText.js";

/**
 * Which engine answers, in words: the status bar tooltip's and the Server view's "Engine" line. A local model says
 * where it computes (`describeBackend`). With the upstream engine the model is the one the upstreams serve
 * (ModelInfo.path lists the upstreams it runs on).
 */
export function describeEngine(kind: "local" | "upstream", model: ModelInfo | null): string {
    if (kind === "local")
        return model?.backend == null ? "local (this machine)" : `local (this machine) · ${describeBackend(model.backend)}`;
    if (model == null)
        return "upstream (not connected)";
    return `upstream · ${model.id} on ${model.path}`;
}

/** The status tooltip's note on a local model only part of which fits on the GPU, in the editor's setting's words. */
export function backendNote(model: ModelInfo | null): {backendNote?: string} {
    const note = model == null ? null : partialOffloadNote(model, "localResponses.contextSize");
    return note == null ? {} : {backendNote: note};
}
