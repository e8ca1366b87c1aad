export {wrapperAndTemplateConflict} from "../../engine/llama/families/chatFormatChoice.js";
import type {SpeculativeKind} from "../../engine/types.js";
import type {HostConfig} from "../config.js";

/**
 * The rules that tie two settings together, written once for both faces; each face says a broken one its own way
 * (the CLI refuses to start, the editor reports it and falls back).
 */

/**
 * What is wrong with a speculative mode and a draft model together: `draft` needs the model, and the model is only
 * used by `draft` (the CLI refuses it; the editor leaves it unused, since its mode always has a value).
 */
export function speculativeConflict(kind: SpeculativeKind, draftModel: string | null): "draftWithoutModel" | "modelWithoutDraft" | null {
    if (kind === "draft" && draftModel == null)
        return "draftWithoutModel";
    if (kind !== "draft" && draftModel != null)
        return "modelWithoutDraft";
    return null;
}

/** The upstream engine without one usable URL cannot answer anything. */
export function upstreamWithoutUrl(engine: HostConfig["engine"], urls: readonly string[]): boolean {
    return engine === "upstream" && urls.length === 0;
}

/**
 * Whether upstreams are served beside local models, routed by name (docs/models.md): `--upstream` with `--model`,
 * `--models-dir` or a presets file, on the local engine. `--engine upstream` still fronts the upstreams alone (a `--model`
 * beside it is unused, as before), and `--upstream` without a local model leaves the local engine as it was.
 */
export function upstreamBesideModels(config: Pick<HostConfig, "engine" | "upstream" | "modelPath" | "library">): boolean {
    const {extraModelPaths, modelsDir, presetsFile} = config.library;
    const localModels = config.modelPath != null || extraModelPaths.length > 0 || modelsDir != null || presetsFile != null;
    return config.engine === "local" && config.upstream.urls.length > 0 && localModels;
}
