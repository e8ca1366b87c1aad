import {inputTooLarge, rateLimited, serverOverloaded, type ApiError} from "../../protocol/errors.js";
import type {BackgroundJob} from "./backgroundJob.js";

/** What admission weighs a new job against. */
export type JobAdmissionLimits = {
    readonly maxInputBytes: number,
    readonly maxActive: number,
    readonly maxActivePerOwner: number,
    /** Byte budget that active jobs share (the response store's), read at each admission. */
    readonly activeBytesBudget?: () => number,
    /** Whether the engine's generation queue is full. */
    readonly generationQueueFull?: () => boolean
};

/**
 * The first rule a new job of `owner` with a `bytes`-byte snapshot breaks, in the order a client can act on: 413 input
 * too large, 429 too many active jobs (in all, for this key, by bytes), 503 the engine's queue full; null admits it.
 */
export function jobAdmissionRefusal(owner: string, bytes: number, active: readonly BackgroundJob[],
    limits: JobAdmissionLimits): ApiError | null {
    if (bytes > limits.maxInputBytes)
        return inputTooLarge(bytes, limits.maxInputBytes);
    if (active.length >= limits.maxActive)
        return rateLimited(
            `${active.length} background responses are already active (limit ${limits.maxActive}); retry when one finishes.`
        );
    if (active.filter((job) => job.owner === owner).length >= limits.maxActivePerOwner)
        return rateLimited(`This API key already has ${limits.maxActivePerOwner} active background responses; retry when one finishes.`);
    if (limits.activeBytesBudget != null && active.reduce((sum, job) => sum + job.bytes, 0) + bytes > limits.activeBytesBudget())
        return rateLimited("Active background responses fill the store byte budget; retry when one finishes.");
    if (limits.generationQueueFull?.() === true)
        return serverOverloaded();
    return null;
}
