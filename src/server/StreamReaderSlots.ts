import {rateLimited} from "../protocol/errors.js";

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
    private readonly perOwner = new Map<string, number>();
    private total = 0;
    public readonly maxReaders: number;
    public readonly maxReadersPerOwner: number;

    public constructor(options: StreamReaderSlotsOptions = {}) {
        this.maxReaders = options.maxReaders ?? defaultStreamReaderLimits.maxReaders;
        this.maxReadersPerOwner = options.maxReadersPerOwner ?? defaultStreamReaderLimits.maxReadersPerOwner;
    }

    public get active(): number {
        return this.total;
    }

    /** Takes a slot; the returned function gives it back (idempotent). */
    public acquire(owner: string): () => void {
        const mine = this.perOwner.get(owner) ?? 0;
        if (this.total >= this.maxReaders)
            throw rateLimited(`${this.total} background streams are already being read (limit ${this.maxReaders}).`);
        if (mine >= this.maxReadersPerOwner)
            throw rateLimited(`This API key already reads ${mine} background streams (limit ${this.maxReadersPerOwner}).`);
        this.total++;
        this.perOwner.set(owner, mine + 1);
        let released = false;
        return () => {
            if (released)
                return;
            released = true;
            this.total--;
            const left = (this.perOwner.get(owner) ?? 1) - 1;
            if (left <= 0)
                this.perOwner.delete(owner);
            else
                this.perOwner.set(owner, left);
        };
    }
}
