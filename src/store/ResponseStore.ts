import {createHash} from "node:crypto";
import type {ResponseTimings} from "../protocol/timings.js";
import type {Item, ResponseObject} from "../protocol/wire.js";
import type {StoredResponse} from "../protocol/storedResponse.js";
import {jsonBytes} from "../protocol/jsonBytes.js";
import type {StoreBounds, StoreCounters} from "./storeBounds.js";
import type {JournalEntries, StoreJournal} from "../protocol/StoreJournal.js";

/** Defaults: 1024 entries, 256 MiB (unique item blocks plus response objects), 3600 s after a response finished, read or not. */
export type ResponseStoreOptions = StoreBounds;


export type ResponseStoreStats = StoreCounters & {blocks: number};

/** `restore`: the records a journal kept came back (a view that listed the store before must list it again). */
export type ResponseStoreChange = {type: "put" | "delete" | "evict" | "expire" | "clear" | "restore", id?: string};

type Block = {item: Item, bytes: number, refs: number};
type StoreRecord = {id: string, owner: string, response: ResponseObject, responseBytes: number, blockKeys: string[], expiresAt: number, timings?: ResponseTimings};
/** A record as its journal keeps it (`r/<id>`); its blocks are `b/<key>`, its last use `u/<id>` (the LRU order). */
type PersistedRecord = {owner: string, response: ResponseObject, blockKeys: string[], expiresAt: number | null, timings?: ResponseTimings, used: number};

/**
 * In-memory response store bounded by entries, bytes and TTL, evicting least recently used first.
 * Items are kept once per owner as immutable, content-addressed blocks that snapshots reference flatly,
 * so a long `previous_response_id` chain does not store its history once per turn, and deleting an
 * ancestor leaves every descendant whole. Records are isolated per owner (API key).
 */
export class ResponseStore {
    private readonly records = new Map<string, StoreRecord>();
    private readonly blocks = new Map<string, Block>();
    /** owner + item id → block key, for `item_reference` inputs. */
    private readonly itemIndex = new Map<string, string>();
    private readonly listeners = new Set<(change: ResponseStoreChange) => void>();
    private bytesUsed = 0;
    /** Bytes charged to each owner (their records and their own blocks), for per-key quotas. */
    private readonly ownerBytes = new Map<string, number>();
    private readonly counters = {hits: 0, misses: 0, writes: 0, evictions: 0, expirations: 0, deletions: 0};
    public readonly maxEntries: number;
    public readonly maxBytes: number;
    public readonly ttlSeconds: number;
    public readonly ownerMaxEntries: number;
    public readonly ownerMaxBytes: number;
    private readonly now: () => number;
    private journal: StoreJournal | null = null;
    /** Orders uses across restarts: the journal records each record's last one. */
    private useCounter = 0;

    public constructor(options: ResponseStoreOptions = {}) {
        this.ownerMaxEntries = options.ownerMaxEntries ?? 0;
        this.ownerMaxBytes = options.ownerMaxBytes ?? 0;
        this.maxEntries = options.maxEntries ?? 1024;
        this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
        this.ttlSeconds = options.ttlSeconds ?? 3600;
        this.now = options.now ?? Date.now;
    }

    public get enabled(): boolean {
        return this.maxEntries > 0;
    }

    public onChange(listener: (change: ResponseStoreChange) => void): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }

    /** Stores a finished response with its full input history (and its timings); returns false if storage is disabled. */
    public put(owner: string, response: ResponseObject, inputItems: readonly Item[], timings?: ResponseTimings): boolean {
        if (!this.enabled)
            return false;
        this.remove(response.id, "delete", false);
        const responseBytes = jsonBytes(response);
        const blockKeys = [...inputItems, ...response.output].map((item) => this.retainBlock(owner, item));
        const record: StoreRecord = {
            id: response.id, owner, response, responseBytes, blockKeys, timings,
            expiresAt: this.ttlSeconds > 0 ? this.now() + this.ttlSeconds * 1000 : Infinity
        };
        this.records.set(response.id, record);
        this.journal?.put(`r/${response.id}`, {
            owner, response, blockKeys, expiresAt: Number.isFinite(record.expiresAt) ? record.expiresAt : null, used: ++this.useCounter,
            ...(timings != null ? {timings} : {})
        } satisfies PersistedRecord);
        this.bytesUsed += responseBytes + blockKeys.length * 8;
        this.charge(owner, responseBytes + blockKeys.length * 8);
        this.counters.writes++;
        this.emit({type: "put", id: response.id});
        this.enforceOwnerQuota(owner);
        this.enforceLimits();
        return true;
    }

    public get(owner: string, id: string): StoredResponse | undefined {
        const record = this.lookup(owner, id);
        if (record == null) {
            this.counters.misses++;
            return undefined;
        }
        this.counters.hits++;
        // Refresh LRU position (Map keeps insertion order).
        this.records.delete(id);
        this.records.set(id, record);
        this.journal?.put(`u/${id}`, ++this.useCounter);
        return this.snapshot(record);
    }

    /**
     * A live response of any owner, for the editor's inspector (the person at the machine sees every key's
     * responses). Unlike `get`, it leaves the LRU order and the hit/miss counters alone.
     */
    public inspect(id: string): StoredResponse | undefined {
        const record = this.records.get(id);
        if (record == null || record.expiresAt <= this.now())
            return undefined;
        return this.snapshot(record);
    }

    public has(owner: string, id: string): boolean {
        return this.lookup(owner, id) != null;
    }

    /** An item of a response this owner stored (input or output), by its id. */
    public findItem(owner: string, itemId: string): Item | undefined {
        const key = this.itemIndex.get(indexKey(owner, itemId));
        return key == null ? undefined : this.blocks.get(key)?.item;
    }

    public delete(owner: string, id: string): boolean {
        if (this.lookup(owner, id) == null)
            return false;
        this.remove(id, "delete");
        this.counters.deletions++;
        return true;
    }

    /** Every live response (of one owner, or all), newest first. */
    public list(owner?: string): ResponseObject[] {
        this.sweepExpired();
        return [...this.records.values()]
            .filter((record) => owner == null || record.owner === owner)
            .map((record) => record.response)
            .sort((a, b) => b.created_at - a.created_at);
    }

    /** Deletes every response, or those of one owner. */
    public clear(owner?: string): number {
        let count = 0;
        for (const record of [...this.records.values()])
            if (owner == null || record.owner === owner) {
                this.remove(record.id, "delete", false);
                count++;
            }
        this.emit({type: "clear"});
        return count;
    }

    /**
     * Restores the records a journal kept (in their LRU order, with their own expiry), then writes every later
     * change to it. Bounds apply at once: a record beyond today's limits, expired, or missing a block is dropped
     * from the journal too.
     */
    public persistTo(journal: StoreJournal, entries: JournalEntries): void {
        const persisted: Array<[string, PersistedRecord]> = [];
        const uses = new Map<string, number>();
        for (const [key, value] of entries)
            if (key.startsWith("r/"))
                persisted.push([key.slice(2), value as PersistedRecord]);
            else if (key.startsWith("u/"))
                uses.set(key.slice(2), value as number);
        const lastUse = ([id, record]: [string, PersistedRecord]) => Math.max(record.used, uses.get(id) ?? 0);
        persisted.sort((a, b) => lastUse(a) - lastUse(b));
        for (const entry of persisted) {
            const [id, record] = entry;
            const items = record.blockKeys.map((key) => entries.get(`b/${key}`) as Item | undefined);
            if (items.some((item) => item == null)) {
                journal.del(`r/${id}`);
                journal.del(`u/${id}`);
                continue;
            }
            const responseBytes = jsonBytes(record.response);
            for (const item of items)
                this.retainBlock(record.owner, item!);
            this.records.set(id, {
                id, owner: record.owner, response: record.response, responseBytes, blockKeys: record.blockKeys,
                expiresAt: record.expiresAt ?? Infinity, ...(record.timings != null ? {timings: record.timings} : {})
            });
            this.bytesUsed += responseBytes + record.blockKeys.length * 8;
            this.charge(record.owner, responseBytes + record.blockKeys.length * 8);
            this.useCounter = Math.max(this.useCounter, lastUse(entry));
        }
        // Blocks no record references any more (their record was dropped) go too.
        for (const key of entries.keys())
            if (key.startsWith("b/") && !this.blocks.has(key.slice(2)))
                journal.del(key);
        this.journal = journal;
        for (const owner of new Set([...this.records.values()].map((record) => record.owner)))
            this.enforceOwnerQuota(owner);
        this.enforceLimits();
        if (this.records.size > 0)
            this.emit({type: "restore"});
    }

    public stats(): ResponseStoreStats {
        return {entries: this.records.size, bytes: this.bytesUsed, blocks: this.blocks.size, ...this.counters};
    }

    public sweepExpired(): void {
        const now = this.now();
        for (const record of [...this.records.values()])
            if (record.expiresAt <= now) {
                this.remove(record.id, "expire");
                this.counters.expirations++;
            }
    }

    /** A record's response and its input history (its block keys hold the input, then the output). */
    private snapshot(record: StoreRecord): StoredResponse {
        const inputKeys = record.blockKeys.slice(0, record.blockKeys.length - record.response.output.length);
        return {response: record.response, owner: record.owner, inputItems: inputKeys.map((key) => this.blocks.get(key)!.item),
            ...(record.timings != null ? {timings: record.timings} : {})};
    }

    private lookup(owner: string, id: string): StoreRecord | undefined {
        const record = this.records.get(id);
        if (record == null || record.owner !== owner)
            return undefined;
        if (record.expiresAt <= this.now()) {
            this.remove(id, "expire");
            this.counters.expirations++;
            return undefined;
        }
        return record;
    }

    private enforceLimits(): void {
        this.sweepExpired();
        while (this.records.size > 0 && (this.records.size > this.maxEntries || this.bytesUsed > this.maxBytes)) {
            const oldest = this.records.keys().next().value as string;
            this.remove(oldest, "evict");
            this.counters.evictions++;
        }
    }

    /** Evicts this owner's least recently used responses while the owner is over a per-key quota. */
    private enforceOwnerQuota(owner: string): void {
        if (this.ownerMaxEntries <= 0 && this.ownerMaxBytes <= 0)
            return;
        const over = () => (this.ownerMaxEntries > 0 && this.ownerEntries(owner) > this.ownerMaxEntries)
            || (this.ownerMaxBytes > 0 && (this.ownerBytes.get(owner) ?? 0) > this.ownerMaxBytes);
        while (over()) {
            const oldest = [...this.records.values()].find((record) => record.owner === owner);
            if (oldest == null)
                return;
            this.remove(oldest.id, "evict");
            this.counters.evictions++;
        }
    }

    private ownerEntries(owner: string): number {
        let count = 0;
        for (const record of this.records.values())
            if (record.owner === owner)
                count++;
        return count;
    }

    private charge(owner: string, bytes: number): void {
        const total = (this.ownerBytes.get(owner) ?? 0) + bytes;
        if (total <= 0)
            this.ownerBytes.delete(owner);
        else
            this.ownerBytes.set(owner, total);
    }

    private retainBlock(owner: string, item: Item): string {
        const key = blockKey(owner, item);
        const block = this.blocks.get(key);
        if (block != null)
            block.refs++;
        else {
            const bytes = jsonBytes(item);
            this.blocks.set(key, {item, bytes, refs: 1});
            this.bytesUsed += bytes;
            this.charge(owner, bytes);
            this.journal?.put(`b/${key}`, item);
        }
        this.itemIndex.set(indexKey(owner, item.id), key);
        return key;
    }

    private releaseBlock(owner: string, key: string): void {
        const block = this.blocks.get(key);
        if (block == null)
            return;
        if (--block.refs > 0)
            return;
        this.blocks.delete(key);
        this.journal?.del(`b/${key}`);
        this.bytesUsed -= block.bytes;
        this.charge(owner, -block.bytes);
        const index = indexKey(owner, block.item.id);
        if (this.itemIndex.get(index) === key)
            this.itemIndex.delete(index);
    }

    private remove(id: string, reason: "delete" | "evict" | "expire", notify = true): void {
        const record = this.records.get(id);
        if (record == null)
            return;
        this.records.delete(id);
        this.journal?.del(`r/${id}`);
        this.journal?.del(`u/${id}`);
        this.bytesUsed -= record.responseBytes + record.blockKeys.length * 8;
        this.charge(record.owner, -(record.responseBytes + record.blockKeys.length * 8));
        for (const key of record.blockKeys)
            this.releaseBlock(record.owner, key);
        if (notify)
            this.emit({type: reason, id});
    }

    private emit(change: ResponseStoreChange): void {
        for (const listener of this.listeners)
            listener(change);
    }
}

function blockKey(owner: string, item: Item): string {
    return createHash("sha256").update(owner).update("\0").update(JSON.stringify(item)).digest("base64url");
}

function indexKey(owner: string, itemId: string): string {
    return `${owner}\0${itemId}`;
}
