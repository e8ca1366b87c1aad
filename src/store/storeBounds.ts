/**
 * The bounds every in-memory store of this server takes (responses, conversations); each store exports its own
 * defaults beside its options (`defaultResponseStoreBounds`, `defaultConversationStoreBounds`).
 */
export type StoreBounds = {
    /** Most records kept; 0 disables the store. */
    maxEntries?: number,
    /** Approximate retained bytes. */
    maxBytes?: number,
    /** Seconds a record lives (0 disables expiry). */
    ttlSeconds?: number,
    /** Per-key quotas (0 = none): beyond them the key's own least recently used records go first. Default: `defaultOwnerQuotas`. */
    ownerMaxEntries?: number,
    ownerMaxBytes?: number,
    /** Milliseconds clock, injectable for tests. */
    now?: () => number
};

/** Per-key quotas of every store: off. */
export const defaultOwnerQuotas = {ownerMaxEntries: 0, ownerMaxBytes: 0} as const satisfies StoreBounds;

/** Occupancy and counters every store reports to `/v1/status` and `/metrics`. */
export type StoreCounters = {
    entries: number,
    bytes: number,
    hits: number,
    misses: number,
    writes: number,
    evictions: number,
    expirations: number,
    deletions: number
};
