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
