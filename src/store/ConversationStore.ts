import {newId, nowSeconds} from "../responses/ids.js";
import type {Item} from "../responses/wire.js";
import {jsonBytes} from "./jsonBytes.js";
import type {StoreBounds, StoreCounters} from "./storeBounds.js";

/** Defaults: 256 conversations (0 disables conversations: 400), 64 MiB of transcripts, 3600 s after a conversation's last use. */
export type ConversationStoreOptions = StoreBounds;

/** The Conversations API object. */
export type ConversationObject = {id: string, object: "conversation", created_at: number, metadata: Record<string, string>};

export type ConversationStoreStats = StoreCounters & {items: number};

type Conversation = {
    conversation: ConversationObject,
    owner: string,
    items: Item[],
    itemBytes: number[],
    bytes: number,
    expiresAt: number
};

/**
 * Conversation transcripts, bounded by entries, bytes and an idle TTL, least recently used evicted first,
 * isolated per owner (API key). A transcript only grows by whole turns or explicit item additions.
 */
export class ConversationStore {
    private readonly records = new Map<string, Conversation>();
    private bytesUsed = 0;
    private readonly counters = {hits: 0, misses: 0, writes: 0, evictions: 0, expirations: 0, deletions: 0};
    public readonly maxEntries: number;
    public readonly maxBytes: number;
    public readonly ttlSeconds: number;
    private readonly ownerMaxEntries: number;
    private readonly ownerMaxBytes: number;
    private readonly now: () => number;

    public constructor(options: ConversationStoreOptions = {}) {
        this.maxEntries = options.maxEntries ?? 256;
        this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
        this.ttlSeconds = options.ttlSeconds ?? 3600;
        this.ownerMaxEntries = options.ownerMaxEntries ?? 0;
        this.ownerMaxBytes = options.ownerMaxBytes ?? 0;
        this.now = options.now ?? Date.now;
    }

    public get enabled(): boolean {
        return this.maxEntries > 0;
    }

    public create(owner: string, items: readonly Item[], metadata: Record<string, string>): ConversationObject {
        const conversation: ConversationObject = {id: newId("conv"), object: "conversation", created_at: nowSeconds(), metadata};
        const record: Conversation = {conversation, owner, items: [], itemBytes: [], bytes: jsonBytes(conversation), expiresAt: 0};
        this.bytesUsed += record.bytes;
        this.records.set(conversation.id, record);
        this.addTo(record, items);
        return conversation;
    }

    public get(owner: string, id: string): ConversationObject | undefined {
        return this.touch(owner, id)?.conversation;
    }

    /** Every item of the transcript, oldest first. */
    public items(owner: string, id: string): readonly Item[] | undefined {
        return this.touch(owner, id)?.items;
    }

    public updateMetadata(owner: string, id: string, metadata: Record<string, string>): ConversationObject | undefined {
        const record = this.touch(owner, id);
        if (record == null)
            return undefined;
        const before = jsonBytes(record.conversation);
        record.conversation.metadata = metadata;
        const delta = jsonBytes(record.conversation) - before;
        record.bytes += delta;
        this.bytesUsed += delta;
        this.enforceLimits(owner);
        return record.conversation;
    }

    /** Appends items (a finished turn, or items added through the API); false if the conversation is gone. */
    public append(owner: string, id: string, items: readonly Item[]): boolean {
        const record = this.touch(owner, id);
        if (record == null)
            return false;
        this.addTo(record, items);
        return true;
    }

    public deleteItem(owner: string, id: string, itemId: string): "deleted" | "no_conversation" | "no_item" {
        const record = this.touch(owner, id);
        if (record == null)
            return "no_conversation";
        const index = record.items.findIndex((item) => item.id === itemId);
        if (index < 0)
            return "no_item";
        record.items.splice(index, 1);
        const [bytes] = record.itemBytes.splice(index, 1);
        record.bytes -= bytes!;
        this.bytesUsed -= bytes!;
        return "deleted";
    }

    public delete(owner: string, id: string): boolean {
        if (this.lookup(owner, id) == null)
            return false;
        this.remove(id);
        this.counters.deletions++;
        return true;
    }

    public stats(): ConversationStoreStats {
        this.sweepExpired();
        let items = 0;
        for (const record of this.records.values())
            items += record.items.length;
        return {entries: this.records.size, bytes: this.bytesUsed, items, ...this.counters};
    }

    public sweepExpired(): void {
        const now = this.now();
        for (const record of [...this.records.values()])
            if (record.expiresAt <= now) {
                this.remove(record.conversation.id);
                this.counters.expirations++;
            }
    }

    private addTo(record: Conversation, items: readonly Item[]): void {
        for (const item of items) {
            const bytes = jsonBytes(item);
            record.items.push(item);
            record.itemBytes.push(bytes);
            record.bytes += bytes;
            this.bytesUsed += bytes;
        }
        this.counters.writes++;
        this.refresh(record);
        this.enforceLimits(record.owner);
    }

    /** Looks up, counts the hit or miss and refreshes the idle TTL and LRU position. */
    private touch(owner: string, id: string): Conversation | undefined {
        const record = this.lookup(owner, id);
        if (record == null) {
            this.counters.misses++;
            return undefined;
        }
        this.counters.hits++;
        this.refresh(record);
        return record;
    }

    private refresh(record: Conversation): void {
        record.expiresAt = this.ttlSeconds > 0 ? this.now() + this.ttlSeconds * 1000 : Infinity;
        this.records.delete(record.conversation.id);
        this.records.set(record.conversation.id, record);
    }

    private lookup(owner: string, id: string): Conversation | undefined {
        const record = this.records.get(id);
        if (record == null || record.owner !== owner)
            return undefined;
        if (record.expiresAt <= this.now()) {
            this.remove(id);
            this.counters.expirations++;
            return undefined;
        }
        return record;
    }

    /** Evicts least recently used conversations: the key's own beyond its quota, then anyone's beyond the totals. */
    private enforceLimits(owner: string): void {
        this.sweepExpired();
        const evictWhile = (candidates: () => Conversation[], over: () => boolean) => {
            while (over()) {
                const oldest = candidates()[0];
                if (oldest == null)
                    return;
                this.remove(oldest.conversation.id);
                this.counters.evictions++;
            }
        };
        const mine = () => [...this.records.values()].filter((record) => record.owner === owner);
        if (this.ownerMaxEntries > 0)
            evictWhile(mine, () => mine().length > this.ownerMaxEntries);
        if (this.ownerMaxBytes > 0)
            evictWhile(mine, () => mine().reduce((sum, record) => sum + record.bytes, 0) > this.ownerMaxBytes);
        evictWhile(() => [...this.records.values()], () => this.records.size > this.maxEntries || this.bytesUsed > this.maxBytes);
    }

    private remove(id: string): void {
        const record = this.records.get(id);
        if (record == null)
            return;
        this.records.delete(id);
        this.bytesUsed -= record.bytes;
    }
}
