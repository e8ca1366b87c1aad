import type {LibraryModel} from "../engine/types.js";

/** A model's timing as one caller may see it, in epoch seconds. */
export type SeenUse = {lastUsedAt: number | null, expiresAt: number | null};

/**
 * What `viewer` (an owner id; null: one who sees all) is shown of when a model was used: its own last use, and when the
 * model unloads for idleness only when its own request was the last (the deadline counts from the last request, and
 * would tell it when another key used the model).
 */
export function seenUse(model: LibraryModel, viewer: string | null): SeenUse {
    const own = viewer == null ? model.lastUsedAt : model.lastUsedBy.get(viewer) ?? null;
    const lastWasOwn = viewer == null || (own != null && own === model.lastUsedAt);
    return {
        lastUsedAt: own == null ? null : Math.floor(own / 1000),
        expiresAt: model.idleUnloadAt == null || !lastWasOwn ? null : Math.ceil(model.idleUnloadAt / 1000)
    };
}
