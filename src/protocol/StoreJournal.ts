/**
 * Where a store writes its changes down, key by key, as it makes them in memory. The memory store stays the
 * index every read is served from; a journal only mirrors it (the durable one into the database), so every
 * bound the memory store enforces holds for what is on disk too. A store without a journal keeps nothing.
 * Changes made in one synchronous step reach the disk together, atomically.
 */
export type StoreJournal = {
    put(key: string, value: unknown): void,
    del(key: string): void,
    /** Resolves once every change made so far (by any journal of the same database) would survive the process being killed. */
    written(): Promise<void>
};

/** A store's persisted entries (its keys, without the store's prefix), read once when the server starts. */
export type JournalEntries = ReadonlyMap<string, unknown>;
