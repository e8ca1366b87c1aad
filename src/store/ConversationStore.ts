import {newId, nowSeconds} from "../protocol/ids.js";
import type {ConversationObject, Item} from "../protocol/wire.js";
import {Emitter} from "../protocol/Emitter.js";
import {jsonBytes} from "../protocol/jsonBytes.js";
import {BoundedStore, type AppliedBounds, type BoundDefaults, journaledExpiry, restoredExpiry} from "./BoundedStore.js";
import type {StoreBounds, StoreCounters} from "./storeBounds.js";
import type {JournalEntries, StoreJournal} from "../protocol/StoreJournal.js";

/** Unset bounds take `defaultConversationStoreBounds`; per-key quotas are off unless set. 0 entries disables conversations (400). */
export type ConversationStoreOptions = StoreBounds;

/** 256 conversations, 64 MiB of transcripts, 3600 s after a conversation's last use. */
export const defaultConversationStoreBounds = {maxEntries: 256, maxBytes: 64 * 1024 * 1024,
    ttlSeconds: 3600} as const satisfies BoundDefaults;


export type ConversationStoreStats = StoreCounters & {items: number};

type Conversation = {
    /** The conversation's id (the core's key). */
    id: string,
    conversation: ConversationObject,
    owner: string,
    items: Item[],
    itemBytes: number[],
    /** Each item's journal key suffix, in transcript order (items are `i/<conversation id>/<ordinal>`). */
    ordinals: number[],
    /** The conversation object and every item. */
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
    /** Entries, bytes, TTL and per-key quotas as applied. */
    public readonly bounds: AppliedBounds;
    private readonly records: BoundedStore<Conversation>;
    /** Owners that deleted a conversation or an item of one (their prompt states on disk go with it). */
    private readonly deletions = new Emitter<string>();
    private nextOrdinal = 0;

    public constructor(options: ConversationStoreOptions = {}) {
        this.records = new BoundedStore<Conversation>(options, defaultConversationStoreBounds,
            (record) => this.released(record));
        this.bounds = this.records;
    }

    public get enabled(): boolean {
        return this.records.enabled;
    }

    public create(owner: string, items: readonly Item[], metadata: Record<string, string>): ConversationObject {
        const conversation: ConversationObject = {id: newId("conv"), object: "conversation", created_at: nowSeconds(), metadata};
        const record: Conversation = {
            id: conversation.id, conversation, owner, items: [], itemBytes: [], ordinals: [], bytes: jsonBytes(conversation), expiresAt: 0
        };
        this.records.add(record);
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
        this.records.resize(record, jsonBytes(record.conversation) - before);
        this.persist(record);
        this.records.enforce([owner]);
        return record.conversation;
    }

    /**
     * Resolves once every change so far is on disk (at once without a journal); rejects with a 507 or 503 when the disk
     * refused it, retries included (the change stays in memory, and is written if the disk comes back).
     */
    public written(): Promise<void> {
        return this.records.journal?.written() ?? Promise.resolve();
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
        this.records.journal?.del(itemKey(id, ordinal!));
        const [bytes] = record.itemBytes.splice(index, 1);
        this.records.resize(record, -bytes!);
        this.deletions.emit(owner);
        return "deleted";
    }

    public delete(owner: string, id: string): boolean {
        const deleted = this.records.delete(owner, id);
        if (deleted)
            this.deletions.emit(owner);
        return deleted;
    }

    /** Called with the owner each time a client deletes a conversation or one of its items. */
    public onDelete(listener: (owner: string) => void): () => void {
        return this.deletions.on(listener);
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
            this.records.restore({
                id: conversation.id, conversation, owner, items: transcript.map(([, item]) => item), itemBytes,
                ordinals: transcript.map(([ordinal]) => ordinal),
                bytes: jsonBytes(conversation) + itemBytes.reduce((sum, size) => sum + size, 0), expiresAt: restoredExpiry(expiresAt)
            }, used);
            this.nextOrdinal = transcript.reduce((next, [ordinal]) => Math.max(next, ordinal + 1), this.nextOrdinal);
        }
        // Items whose conversation is gone.
        for (const [id, orphans] of items)
            for (const [ordinal] of orphans)
                journal.del(itemKey(id, ordinal));
        this.records.attach(journal);
    }

    public stats(): ConversationStoreStats {
        this.records.sweepExpired();
        const {entries, bytes, ...counters} = this.records.stats();
        const items = this.records.values().reduce((count, record) => count + record.items.length, 0);
        return {entries, bytes, items, ...counters};
    }

    public sweepExpired(): void {
        this.records.sweepExpired();
    }

    private addTo(record: Conversation, items: readonly Item[]): void {
        for (const item of items) {
            const bytes = jsonBytes(item);
            record.items.push(item);
            record.itemBytes.push(bytes);
            const ordinal = this.nextOrdinal++;
            record.ordinals.push(ordinal);
            this.records.journal?.put(itemKey(record.id, ordinal), item);
            this.records.resize(record, bytes);
        }
        this.records.countWrite();
        this.refresh(record);
        this.records.enforce([record.owner]);
    }

    /** Looks up, counts the hit or miss and refreshes the idle TTL and LRU position. */
    private touch(owner: string, id: string): Conversation | undefined {
        const record = this.records.use(owner, id);
        if (record != null)
            this.refresh(record);
        return record;
    }

    private refresh(record: Conversation): void {
        record.expiresAt = this.records.expiry();
        this.records.promote(record);
        this.persist(record);
    }

    /** Writes a conversation's object, owner, expiry and last use (its items are written as they come). */
    private persist(record: Conversation): void {
        this.records.journal?.put(`c/${record.id}`, {
            conversation: record.conversation, owner: record.owner, expiresAt: journaledExpiry(record.expiresAt),
            used: this.records.nextUse()
        } satisfies PersistedConversation);
    }

    /** A conversation left the core (deleted, evicted, expired): its journal keys go. */
    private released(record: Conversation): void {
        this.records.journal?.del(`c/${record.id}`);
        for (const ordinal of record.ordinals)
            this.records.journal?.del(itemKey(record.id, ordinal));
    }
}

/** Zero-padded so the journal's keys sort in transcript order. */
function itemKey(conversationId: string, ordinal: number): string {
    return `i/${conversationId}/${String(ordinal).padStart(12, "0")}`;
}
