import type {StoreJournal} from "../protocol/StoreJournal.js";
import {defaultOwnerQuotas, type StoreBounds, type StoreCounters} from "./storeBounds.js";

/** What the core keeps of each record; a store's own record type extends it. */
export type BoundedEntry = {
    readonly id: string,
    /** The API key the record belongs to: lookups by another owner miss, per-key quotas count per owner. */
    readonly owner: string,
    /** Bytes charged to this record alone; change them with `resize`. Parts shared between records go through `charge`. */
    bytes: number,
    /** Milliseconds after which the record is gone; Infinity when the TTL is off. */
    expiresAt: number
};

/**
 * Why a record left, told to the store and counted. `null`: a removal the store makes on its own account (a record
 * replaced, the store cleared), neither counted nor to be reported as a change.
 */
export type RemovalReason = "delete" | "evict" | "expire" | null;

/** The bounds a store applies where its options leave them unset. */
export type BoundDefaults = {maxEntries: number, maxBytes: number, ttlSeconds: number};

/** The bounds a store applies (its options over its defaults), as `/v1/status` reports them. */
export type AppliedBounds = Readonly<Required<Omit<StoreBounds, "now">>>;

/**
 * The core of the in-memory stores (responses, conversations): records by id in least-recently-used order, bounded
 * by entries, bytes and TTL in total and by entries and bytes per owner, with hit/miss/eviction counters and the
 * journal (the durable store) they write to. The store owns what its records hold and how they are journaled;
 * the core decides which record goes and tells the store through `released`.
 */
export class BoundedStore<E extends BoundedEntry> implements AppliedBounds {
    public readonly maxEntries: number;
    public readonly maxBytes: number;
    public readonly ttlSeconds: number;
    public readonly ownerMaxEntries: number;
    public readonly ownerMaxBytes: number;
    public readonly now: () => number;
    /** Least recently used first (a Map keeps insertion order; a use moves the record to the end). */
    private readonly records = new Map<string, E>();
    private bytesUsed = 0;
    /** Bytes charged to each owner (its records and what they share), for per-key quotas. */
    private readonly ownerBytes = new Map<string, number>();
    private readonly ownerEntries = new Map<string, number>();
    private readonly counters = {hits: 0, misses: 0, writes: 0, evictions: 0, expirations: 0, deletions: 0};
    private attached: StoreJournal | null = null;
    /** Orders uses across restarts: the journal records each record's last one. */
    private useCounter = 0;

    /** `released` runs after a record left the index and its own bytes were uncharged: the store drops its parts and journal keys there. */
    public constructor(bounds: StoreBounds, defaults: BoundDefaults,
        private readonly released: (record: E, reason: RemovalReason) => void) {
        this.maxEntries = bounds.maxEntries ?? defaults.maxEntries;
        this.maxBytes = bounds.maxBytes ?? defaults.maxBytes;
        this.ttlSeconds = bounds.ttlSeconds ?? defaults.ttlSeconds;
        this.ownerMaxEntries = bounds.ownerMaxEntries ?? defaultOwnerQuotas.ownerMaxEntries;
        this.ownerMaxBytes = bounds.ownerMaxBytes ?? defaultOwnerQuotas.ownerMaxBytes;
        this.now = bounds.now ?? Date.now;
    }

    /** 0 entries turns the store off. */
    public get enabled(): boolean {
        return this.maxEntries > 0;
    }

    public get size(): number {
        return this.records.size;
    }

    /** Where changes are written (null until `attach`, and for memory storage). */
    public get journal(): StoreJournal | null {
        return this.attached;
    }

    /** When a record written or used now expires. */
    public expiry(): number {
        return this.ttlSeconds > 0 ? this.now() + this.ttlSeconds * 1000 : Infinity;
    }

    /** The next use's number, for the journal (records are restored in the order of their last use). */
    public nextUse(): number {
        return ++this.useCounter;
    }

    /** Adds a record as the most recently used and charges its bytes; `enforce` applies the bounds afterwards. */
    public add(record: E): void {
        this.records.set(record.id, record);
        this.ownerEntries.set(record.owner, (this.ownerEntries.get(record.owner) ?? 0) + 1);
        this.charge(record.owner, record.bytes);
    }

    /** Adds a record a journal kept; restore them least recently used first. */
    public restore(record: E, lastUse: number): void {
        this.add(record);
        this.useCounter = Math.max(this.useCounter, lastUse);
    }

    /** From now on changes go to `journal`; today's bounds apply at once to what was restored. */
    public attach(journal: StoreJournal): void {
        this.attached = journal;
        this.enforce(new Set([...this.records.values()].map((record) => record.owner)));
    }

    public countWrite(): void {
        this.counters.writes++;
    }

    /** The owner's live record, or undefined (another owner's, missing, or expired: then removed). Counts nothing. */
    public find(owner: string, id: string): E | undefined {
        const record = this.records.get(id);
        if (record == null || record.owner !== owner)
            return undefined;
        if (record.expiresAt <= this.now()) {
            this.remove(id, "expire");
            return undefined;
        }
        return record;
    }

    /** `find` that counts the hit or miss and makes the record the most recently used. */
    public use(owner: string, id: string): E | undefined {
        const record = this.find(owner, id);
        if (record == null) {
            this.counters.misses++;
            return undefined;
        }
        this.counters.hits++;
        this.promote(record);
        return record;
    }

    /** A live record of any owner, with no side effect (no LRU move, no counter, no removal). */
    public peek(id: string): E | undefined {
        const record = this.records.get(id);
        return record == null || record.expiresAt <= this.now() ? undefined : record;
    }

    /** Every record (expired ones too until swept), least recently used first. */
    public values(): E[] {
        return [...this.records.values()];
    }

    public promote(record: E): void {
        this.records.delete(record.id);
        this.records.set(record.id, record);
    }

    /** Deletes the owner's record; false when it has none by that id. */
    public delete(owner: string, id: string): boolean {
        if (this.find(owner, id) == null)
            return false;
        this.remove(id, "delete");
        return true;
    }

    public remove(id: string, reason: RemovalReason): void {
        const record = this.records.get(id);
        if (record == null)
            return;
        this.records.delete(id);
        const entries = (this.ownerEntries.get(record.owner) ?? 0) - 1;
        if (entries > 0)
            this.ownerEntries.set(record.owner, entries);
        else
            this.ownerEntries.delete(record.owner);
        this.charge(record.owner, -record.bytes);
        this.released(record, reason);
        if (reason === "delete")
            this.counters.deletions++;
        else if (reason === "evict")
            this.counters.evictions++;
        else if (reason === "expire")
            this.counters.expirations++;
    }

    /** A record grew or shrank by `delta` bytes. */
    public resize(record: E, delta: number): void {
        record.bytes += delta;
        this.charge(record.owner, delta);
    }

    /** Bytes held for an owner outside any one record (parts its records share), or given back with a negative count. */
    public charge(owner: string, delta: number): void {
        this.bytesUsed += delta;
        const total = (this.ownerBytes.get(owner) ?? 0) + delta;
        if (total <= 0)
            this.ownerBytes.delete(owner);
        else
            this.ownerBytes.set(owner, total);
    }

    public sweepExpired(): void {
        const now = this.now();
        for (const record of [...this.records.values()])
            if (record.expiresAt <= now)
                this.remove(record.id, "expire");
    }

    /**
     * Applies the bounds after a change: expired records go, then each named owner's least recently used records
     * while the owner is over a per-key quota, then anyone's least recently used while the store is over its totals.
     */
    public enforce(owners: Iterable<string>): void {
        this.sweepExpired();
        for (const owner of owners)
            while (this.overOwnerQuota(owner)) {
                const oldest = [...this.records.values()].find((record) => record.owner === owner);
                if (oldest == null)
                    break;
                this.remove(oldest.id, "evict");
            }
        while (this.records.size > 0 && (this.records.size > this.maxEntries || this.bytesUsed > this.maxBytes))
            this.remove(this.records.keys().next().value as string, "evict");
    }

    /** Occupancy and counters, as `/v1/status` and `/metrics` report them. */
    public stats(): StoreCounters {
        return {entries: this.records.size, bytes: this.bytesUsed, ...this.counters};
    }

    private overOwnerQuota(owner: string): boolean {
        return (this.ownerMaxEntries > 0 && (this.ownerEntries.get(owner) ?? 0) > this.ownerMaxEntries)
            || (this.ownerMaxBytes > 0 && (this.ownerBytes.get(owner) ?? 0) > this.ownerMaxBytes);
    }
}

/** A record's expiry as a journal keeps it (JSON has no Infinity). */
export function journaledExpiry(expiresAt: number): number | null {
    return Number.isFinite(expiresAt) ? expiresAt : null;
}

export function restoredExpiry(journaled: number | null): number {
    return journaled ?? Infinity;
}
