import type {ModelInfo} from "../../engine/types.js";

/**
 * Which engine answers, in words: the status bar tooltip's and the Server view's "Engine" line. With the upstream
 * engine the model is the one the upstreams serve (ModelInfo.path lists the upstreams it runs on).
 */
export function describeEngine(kind: "local" | "upstream", model: ModelInfo | null): string {
    if (kind === "local")
        return "local (this machine)";
    if (model == null)
        return "upstream (not connected)";
    return `upstream · ${model.id} on ${model.path}`;
}
