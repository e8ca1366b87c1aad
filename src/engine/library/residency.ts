/** A model that holds memory now (loaded, or being loaded), as the residency plan weighs it. */
export type ResidentModel = {
    id: string,
    /** Its estimated memory (weights + contexts). */
    bytes: number,
    /** When its last request ended (epoch ms); the least recent goes first. */
    lastUsedAt: number,
    /** It has requests in flight (or waiting), or is loading: never unloaded for another. */
    busy: boolean
};

export type ResidencyLimits = {maxLoaded: number, memoryBudgetBytes: number};

/**
 * What loading a model of `neededBytes` takes, given what is resident besides it:
 * - `fits`: unloading `evict` (least recently used idle models first, as few as will do) leaves room for it;
 * - `wait`: only busy models stand in the way: it fits once those in `drain` (least recently used first, as few as
 *   will do) have finished their requests;
 * - `never`: it needs more than the whole budget.
 * Nothing is unloaded unless that makes it fit: a wait evicts nothing yet.
 */
export function planResidency(resident: readonly ResidentModel[], neededBytes: number, limits: ResidencyLimits):
    {kind: "fits", evict: string[]} | {kind: "wait", drain: string[]} | {kind: "never"} {
    if (neededBytes > limits.memoryBudgetBytes)
        return {kind: "never"};
    const fits = (models: readonly ResidentModel[]) => models.length + 1 <= limits.maxLoaded
        && models.reduce((sum, model) => sum + model.bytes, 0) + neededBytes <= limits.memoryBudgetBytes;
    const kept = [...resident];
    const evict: string[] = [];
    const idleByAge = resident.filter((model) => !model.busy).sort((a, b) => a.lastUsedAt - b.lastUsedAt);
    for (const model of idleByAge) {
        if (fits(kept))
            break;
        kept.splice(kept.indexOf(model), 1);
        evict.push(model.id);
    }
    if (fits(kept))
        return {kind: "fits", evict};
    // The busy models it waits for, least recently used first, as few as make room once their requests end.
    const drain: string[] = [];
    for (const model of resident.filter((other) => other.busy).sort((a, b) => a.lastUsedAt - b.lastUsedAt)) {
        if (fits(kept))
            break;
        kept.splice(kept.indexOf(model), 1);
        drain.push(model.id);
    }
    return {kind: "wait", drain};
}
