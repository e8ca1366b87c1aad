import {newId, nowSeconds} from "../protocol/ids.js";
import type {Item} from "../protocol/wire.js";
import {jsonBytes} from "../protocol/jsonBytes.js";
import type {StoreBounds, StoreCounters} from "./storeBounds.js";
import type {JournalEntries, StoreJournal} from "../protocol/StoreJournal.js";

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
    /** Each item's journal key suffix, in transcript order (items are `i/<conversation id>/<ordinal>`). */
    ordinals: number[],
    bytes: number,
    expiresAt: number
};

/** A conversation as its journal keeps it (`c/<id>`), `used` ordering uses across restarts. */
type PersistedConversation = {conversation: ConversationObject, owner: string, expiresAt: number | null, used: number};

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
    private journal: StoreJournal | null = null;
    private useCounter = 0;
    private nextOrdinal = 0;

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
        const record: Conversation = {conversation, owner, items: [], itemBytes: [], ordinals: [], bytes: jsonBytes(conversation), expiresAt: 0};
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
        this.persist(record);
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
        const [ordinal] = record.ordinals.splice(index, 1);
        this.journal?.del(itemKey(id, ordinal!));
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

    /**
     * Restores the conversations a journal kept (in their LRU order, with their own expiry), then writes every
     * later change to it; today's bounds apply at once, and what they drop leaves the journal too.
     */
    public persistTo(journal: StoreJournal, entries: JournalEntries): void {
        const items = new Map<string, Array<[number, Item]>>();
        const persisted: PersistedConversation[] = [];
        for (const [key, value] of entries)
            if (key.startsWith("c/"))
                persisted.push(value as PersistedConversation);
            else if (key.startsWith("i/")) {
                const [, id, ordinal] = key.split("/");
                items.set(id!, [...items.get(id!) ?? [], [Number(ordinal), value as Item]]);
            }
        persisted.sort((a, b) => a.used - b.used);
        for (const {conversation, owner, expiresAt, used} of persisted) {
            const transcript = (items.get(conversation.id) ?? []).sort((a, b) => a[0] - b[0]);
            items.delete(conversation.id);
            const itemBytes = transcript.map(([, item]) => jsonBytes(item));
            const bytes = jsonBytes(conversation) + itemBytes.reduce((sum, size) => sum + size, 0);
            this.records.set(conversation.id, {
                conversation, owner, items: transcript.map(([, item]) => item), itemBytes, ordinals: transcript.map(([ordinal]) => ordinal),
                bytes, expiresAt: expiresAt ?? Infinity
            });
            this.bytesUsed += bytes;
            this.useCounter = Math.max(this.useCounter, used);
            this.nextOrdinal = transcript.reduce((next, [ordinal]) => Math.max(next, ordinal + 1), this.nextOrdinal);
        }
        // Items whose conversation is gone.
        for (const [id, orphans] of items)
            for (const [ordinal] of orphans)
                journal.del(itemKey(id, ordinal));
        this.journal = journal;
        for (const owner of new Set([...this.records.values()].map((record) => record.owner)))
            this.enforceLimits(owner);
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
            const ordinal = this.nextOrdinal++;
            record.ordinals.push(ordinal);
            this.journal?.put(itemKey(record.conversation.id, ordinal), item);
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
        this.persist(record);
    }

    /** Writes a conversation's object, owner, expiry and last use (its items are written as they come). */
    private persist(record: Conversation): void {
        this.journal?.put(`c/${record.conversation.id}`, {
            conversation: record.conversation, owner: record.owner,
            expiresAt: Number.isFinite(record.expiresAt) ? record.expiresAt : null, used: ++this.useCounter
        } satisfies PersistedConversation);
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
        this.journal?.del(`c/${id}`);
        for (const ordinal of record.ordinals)
            this.journal?.del(itemKey(id, ordinal));
    }
}

/** Zero-padded so the journal's keys sort in transcript order. */
function itemKey(conversationId: string, ordinal: number): string {
    return `i/${conversationId}/${String(ordinal).padStart(12, "0")}`;
}
