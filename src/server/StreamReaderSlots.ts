import {rateLimited} from "../protocol/errors.js";
import {OwnerSlots} from "./OwnerSlots.js";

export type StreamReaderSlotsOptions = {
    /** Background stream readers at once. Defaults to `defaultStreamReaderLimits.maxReaders`. */
    maxReaders?: number,
    /** Background stream readers per API key. Defaults to `defaultStreamReaderLimits.maxReadersPerOwner`. */
    maxReadersPerOwner?: number
};

/** Background stream readers: 32 at once, 8 per API key. */
export const defaultStreamReaderLimits = {maxReaders: 32, maxReadersPerOwner: 8} as const satisfies StreamReaderSlotsOptions;

/**
 * Admission of background stream readers, globally and per key: each reader holds a slot until it
 * disconnects or its stream ends; one more is refused with 429 rather than queued.
 */
export class StreamReaderSlots {
    private readonly slots: OwnerSlots;
    public readonly maxReaders: number;
    public readonly maxReadersPerOwner: number;

    public constructor(options: StreamReaderSlotsOptions = {}) {
        this.maxReaders = options.maxReaders ?? defaultStreamReaderLimits.maxReaders;
        this.maxReadersPerOwner = options.maxReadersPerOwner ?? defaultStreamReaderLimits.maxReadersPerOwner;
        this.slots = new OwnerSlots(this.maxReaders, this.maxReadersPerOwner);
    }

    public get active(): number {
        return this.slots.held;
    }

    /** Takes a slot; the returned function gives it back (idempotent). */
    public acquire(owner: string): () => void {
        const slot = this.slots.acquire(owner);
        if (typeof slot === "function")
            return slot;
        throw slot.limit === "total"
            ? rateLimited(`${slot.held} background streams are already being read (limit ${this.maxReaders}).`)
            : rateLimited(`This API key already reads ${slot.held} background streams (limit ${this.maxReadersPerOwner}).`);
    }
}
