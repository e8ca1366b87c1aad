import {createHash} from "node:crypto";
import type {ResponseTimings} from "../protocol/timings.js";
import type {Item, ResponseObject} from "../protocol/wire.js";
import type {StoredResponse} from "../protocol/storedResponse.js";
import {jsonBytes} from "../protocol/jsonBytes.js";
import {BoundedStore, type AppliedBounds, type BoundDefaults, journaledExpiry, restoredExpiry, type RemovalReason} from "./BoundedStore.js";
import type {StoreBounds, StoreCounters} from "./storeBounds.js";
import type {JournalEntries, StoreJournal} from "../protocol/StoreJournal.js";
import {Emitter} from "../protocol/Emitter.js";

/** Unset bounds take `defaultResponseStoreBounds`; per-key quotas are off unless set. */
export type ResponseStoreOptions = StoreBounds;

/** 1024 responses, 256 MiB (unique item blocks plus response objects), 3600 s after a response finished, read or not. */
export const defaultResponseStoreBounds = {maxEntries: 1024, maxBytes: 256 * 1024 * 1024,
    ttlSeconds: 3600} as const satisfies BoundDefaults;

export type ResponseStoreStats = StoreCounters & {blocks: number};

/** `restore`: the records a journal kept came back (a view that listed the store before must list it again). */
/** A change of the store: `owner` is whose response was deleted or evicted, or whose were cleared (absent: everyone's). */
export type ResponseStoreChange = {type: "put" | "delete" | "evict" | "expire" | "clear" | "restore", id?: string, owner?: string};

type Block = {item: Item, bytes: number, refs: number};
/** `bytes`: the response object and 8 per block reference; the blocks are charged to the owner apart, once each. */
type StoreRecord = {
    id: string, owner: string, response: ResponseObject, bytes: number, blockKeys: string[], expiresAt: number, timings?: ResponseTimings
};
/** A record as its journal keeps it (`r/<id>`); its blocks are `b/<key>`, its last use `u/<id>` (the LRU order). */
type PersistedRecord = {
    owner: string, response: ResponseObject, blockKeys: string[], expiresAt: number | null, timings?: ResponseTimings, used: number
};

/**
 * In-memory response store bounded by entries, bytes and TTL, evicting least recently used first.
 * Items are kept once per owner as immutable, content-addressed blocks that snapshots reference flatly,
 * so a long `previous_response_id` chain does not store its history once per turn, and deleting an
 * ancestor leaves every descendant whole. Records are isolated per owner (API key).
 */
export class ResponseStore {
    /** Entries, bytes, TTL and per-key quotas as applied. */
    public readonly bounds: AppliedBounds;
    private readonly records: BoundedStore<StoreRecord>;
    private readonly blocks = new Map<string, Block>();
    /** owner + item id → block key, for `item_reference` inputs. */
    private readonly itemIndex = new Map<string, string>();
    private readonly changes = new Emitter<ResponseStoreChange>();

    public constructor(options: ResponseStoreOptions = {}) {
        this.records = new BoundedStore<StoreRecord>(options, defaultResponseStoreBounds,
            (record, reason) => this.released(record, reason));
        this.bounds = this.records;
    }

    public get enabled(): boolean {
        return this.records.enabled;
    }

    public onChange(listener: (change: ResponseStoreChange) => void): () => void {
        return this.changes.on(listener);
    }

    /** Stores a finished response with its full input history (and its timings); returns false if storage is disabled. */
    public put(owner: string, response: ResponseObject, inputItems: readonly Item[], timings?: ResponseTimings): boolean {
        if (!this.enabled)
            return false;
        this.records.remove(response.id, null);
        const blockKeys = [...inputItems, ...response.output].map((item) => this.retainBlock(owner, item));
        const record: StoreRecord = {
            id: response.id, owner, response, bytes: recordBytes(response, blockKeys), blockKeys, timings, expiresAt: this.records.expiry()
        };
        this.records.add(record);
        this.records.journal?.put(`r/${response.id}`, {
            owner, response, blockKeys, expiresAt: journaledExpiry(record.expiresAt), used: this.records.nextUse(),
            ...(timings != null ? {timings} : {})
        } satisfies PersistedRecord);
        this.records.countWrite();
        this.changes.emit({type: "put", id: response.id});
        this.records.enforce([owner]);
        return true;
    }

    public get(owner: string, id: string): StoredResponse | undefined {
        const record = this.records.use(owner, id);
        if (record == null)
            return undefined;
        this.records.journal?.put(`u/${id}`, this.records.nextUse());
        return this.snapshot(record);
    }

    /**
     * A live response of any owner, for the editor's inspector (the person at the machine sees every key's
     * responses). Unlike `get`, it leaves the LRU order and the hit/miss counters alone.
     */
    public inspect(id: string): StoredResponse | undefined {
        const record = this.records.peek(id);
        return record == null ? undefined : this.snapshot(record);
    }

    public has(owner: string, id: string): boolean {
        return this.records.find(owner, id) != null;
    }

    /** An item of a response this owner stored (input or output), by its id. */
    public findItem(owner: string, itemId: string): Item | undefined {
        const key = this.itemIndex.get(indexKey(owner, itemId));
        return key == null ? undefined : this.blocks.get(key)?.item;
    }

    /**
     * Resolves once every change so far is on disk (at once without a journal); rejects with a 507 or 503 when the disk
     * refused it, retries included (the change stays in memory, and is written if the disk comes back).
     */
    public written(): Promise<void> {
        return this.records.journal?.written() ?? Promise.resolve();
    }

    public delete(owner: string, id: string): boolean {
        return this.records.delete(owner, id);
    }

    /** Every live response (of one owner, or all), newest first. */
    public list(owner?: string): ResponseObject[] {
        this.records.sweepExpired();
        return this.records.values()
            .filter((record) => owner == null || record.owner === owner)
            .map((record) => record.response)
            .sort((a, b) => b.created_at - a.created_at);
    }

    /** Deletes every response, or those of one owner. */
    public clear(owner?: string): number {
        let count = 0;
        for (const record of this.records.values())
            if (owner == null || record.owner === owner) {
                this.records.remove(record.id, null);
                count++;
            }
        this.changes.emit({type: "clear", ...owner != null && {owner}});
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
            for (const item of items)
                this.retainBlock(record.owner, item!);
            this.records.restore({
                id, owner: record.owner, response: record.response, bytes: recordBytes(record.response, record.blockKeys),
                blockKeys: record.blockKeys, expiresAt: restoredExpiry(record.expiresAt),
                ...(record.timings != null ? {timings: record.timings} : {})
            }, lastUse(entry));
        }
        // Blocks no record references any more (their record was dropped) go too.
        for (const key of entries.keys())
            if (key.startsWith("b/") && !this.blocks.has(key.slice(2)))
                journal.del(key);
        this.records.attach(journal);
        if (this.records.size > 0)
            this.changes.emit({type: "restore"});
    }

    public stats(): ResponseStoreStats {
        const {entries, bytes, ...counters} = this.records.stats();
        return {entries, bytes, blocks: this.blocks.size, ...counters};
    }

    public sweepExpired(): void {
        this.records.sweepExpired();
    }

    /** A record's response and its input history (its block keys hold the input, then the output). */
    private snapshot(record: StoreRecord): StoredResponse {
        const inputKeys = record.blockKeys.slice(0, record.blockKeys.length - record.response.output.length);
        return {response: record.response, owner: record.owner, inputItems: inputKeys.map((key) => this.blocks.get(key)!.item),
            ...(record.timings != null ? {timings: record.timings} : {})};
    }

    private retainBlock(owner: string, item: Item): string {
        const key = blockKey(owner, item);
        const block = this.blocks.get(key);
        if (block != null)
            block.refs++;
        else {
            const bytes = jsonBytes(item);
            this.blocks.set(key, {item, bytes, refs: 1});
            this.records.charge(owner, bytes);
            this.records.journal?.put(`b/${key}`, item);
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
        this.records.journal?.del(`b/${key}`);
        this.records.charge(owner, -block.bytes);
        const index = indexKey(owner, block.item.id);
        if (this.itemIndex.get(index) === key)
            this.itemIndex.delete(index);
    }

    /** A record left the core: its journal keys and its blocks go, and listeners hear why (not of a replace or clear). */
    private released(record: StoreRecord, reason: RemovalReason): void {
        this.records.journal?.del(`r/${record.id}`);
        this.records.journal?.del(`u/${record.id}`);
        for (const key of record.blockKeys)
            this.releaseBlock(record.owner, key);
        if (reason != null)
            this.changes.emit({type: reason, id: record.id, owner: record.owner});
    }
}

function recordBytes(response: ResponseObject, blockKeys: readonly string[]): number {
    return jsonBytes(response) + blockKeys.length * 8;
}

function blockKey(owner: string, item: Item): string {
    return createHash("sha256").update(owner).update("\0").update(JSON.stringify(item)).digest("base64url");
}

function indexKey(owner: string, itemId: string): string {
    return `${owner}\0${itemId}`;
}
