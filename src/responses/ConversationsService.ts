import {conversationNotFound, invalidRequest, invalidRequestBody, itemNotFound} from "../protocol/errors.js";
import {isObject} from "../protocol/isObject.js";
import type {ConversationObject, Item} from "../protocol/wire.js";
import {normalizeInput} from "./inputItems.js";
import {pageById} from "./pagination.js";
import type {ConversationRepository, ResponseRepository} from "./ports.js";
import type {InputItemBody} from "./requestSchemas/itemDefs.js";
import {checkBody, validateConversationCreate, validateConversationItems, validateConversationUpdate} from "./requestSchemas/validators.js";

/** A page of items, as the Conversations API lists them. */
type ItemPage = ReturnType<typeof pageById<Item>>;

/**
 * OpenAI's Conversations API, transport-free: conversations and their items, isolated per key. What a call stores
 * (a new conversation, metadata, added items) resolves once the durable store has written it: a write the disk refuses
 * is the store's 507 or 503, not a success. Deletes answer at once: the store keeps retrying their writes, and memory
 * keeps the data deleted meanwhile. Bodies are checked by their schemas (`schemas/conversation*.ts`); items are
 * normalized like response input (ids assigned, `item_reference` resolved against the caller's responses).
 */
export class ConversationsService {
    public constructor(private readonly conversations: ConversationRepository, private readonly responses: ResponseRepository) {}

    /** Refuses every call while conversations are turned off (0 entries). */
    public checkEnabled(): void {
        if (!this.conversations.enabled)
            throw invalidRequest("Conversations are disabled on this server (conversation store entries is 0).", null,
                "unsupported_parameter");
    }

    public async create(owner: string, rawBody: unknown): Promise<ConversationObject> {
        const {items, metadata} = checkBody(validateConversationCreate, bodyOf(rawBody));
        const created = this.conversations.create(owner, this.normalize(owner, items), metadata ?? {});
        await this.conversations.written();
        return created;
    }

    public get(owner: string, id: string): ConversationObject {
        return found(this.conversations.get(owner, id), id);
    }

    public async update(owner: string, id: string, rawBody: unknown): Promise<ConversationObject> {
        const {metadata} = checkBody(validateConversationUpdate, bodyOf(rawBody));
        const updated = found(this.conversations.updateMetadata(owner, id, metadata ?? {}), id);
        await this.conversations.written();
        return updated;
    }

    public delete(owner: string, id: string): {id: string, object: "conversation.deleted", deleted: true} {
        found(this.conversations.delete(owner, id) ? true : undefined, id);
        return {id, object: "conversation.deleted", deleted: true};
    }

    public listItems(owner: string, id: string, query: {order?: unknown, limit?: unknown, after?: unknown}): ItemPage {
        const list = found(this.conversations.items(owner, id), id);
        return pageById(list, query, (after) => `No item with id '${after}' in this conversation.`);
    }

    public async addItems(owner: string, id: string, rawBody: unknown) {
        found(this.conversations.get(owner, id), id);
        const added = this.normalize(owner, checkBody(validateConversationItems, bodyOf(rawBody)).items);
        this.conversations.append(owner, id, added);
        await this.conversations.written();
        return {object: "list" as const, data: added, first_id: added[0]?.id ?? null, last_id: added.at(-1)?.id ?? null, has_more: false};
    }

    public getItem(owner: string, id: string, itemId: string): Item {
        const item = found(this.conversations.items(owner, id), id).find((entry) => entry.id === itemId);
        if (item == null)
            throw itemMissing(id, itemId);
        return item;
    }

    /** Deletes one item; answers the conversation, as OpenAI's does. */
    public deleteItem(owner: string, id: string, itemId: string): ConversationObject {
        const outcome = this.conversations.deleteItem(owner, id, itemId);
        found(outcome === "no_conversation" ? undefined : true, id);
        if (outcome === "no_item")
            throw itemMissing(id, itemId);
        return this.get(owner, id);
    }

    private normalize(owner: string, raw: InputItemBody[] | null | undefined): Item[] {
        return normalizeInput(raw, (itemId) => this.responses.findItem(owner, itemId), "items");
    }
}

function found<T>(value: T | undefined, id: string): T {
    if (value == null)
        throw conversationNotFound(id);
    return value;
}

/** An absent body is an empty one. */
function bodyOf(raw: unknown): Record<string, unknown> {
    if (raw != null && !isObject(raw))
        throw invalidRequestBody();
    return raw ?? {};
}

function itemMissing(conversationId: string, itemId: string) {
    return itemNotFound(`No item with id '${itemId}' in conversation '${conversationId}'.`);
}
