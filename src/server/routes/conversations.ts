import {Router} from "express";
import {conversationNotFound, invalidRequest, invalidRequestBody, itemNotFound} from "../../protocol/errors.js";
import {normalizeInput} from "../../responses/inputItems.js";
import {isObject} from "../../protocol/isObject.js";
import {pageById} from "../../responses/pagination.js";
import type {InputItemBody} from "../../responses/schemas/itemDefs.js";
import {
    checkBody, validateConversationCreate, validateConversationItems, validateConversationUpdate
} from "../../responses/schemas/validators.js";
import type {ResponseStore} from "../../store/ResponseStore.js";
import type {ConversationStore} from "../../store/ConversationStore.js";

/**
 * OpenAI's Conversations API over the conversation store: conversations and their items, isolated per key.
 * What a request stores (a new conversation, metadata, added items) is answered once the durable store has written
 * it: a write the disk refuses is the store's 507 or 503, not a success. Deletes answer at once: the store keeps
 * retrying their writes, and memory keeps the data deleted meanwhile.
 * Bodies are checked by their schemas (`src/responses/schemas/conversation*.ts`); items are normalized like response
 * input (ids assigned, `item_reference` resolved against the caller's responses).
 */
export function conversationsRouter(conversations: ConversationStore, responses: ResponseStore): Router {
    const router = Router();

    router.use("/conversations", (_req, _res, next) => {
        next(
            conversations.enabled ? undefined
                : invalidRequest("Conversations are disabled on this server (conversation store entries is 0).", null,
                    "unsupported_parameter")
        );
    });

    const items = (owner: string, raw: InputItemBody[] | null | undefined) =>
        normalizeInput(raw, (id) => responses.findItem(owner, id), "items");
    const found = <T>(value: T | undefined, id: string): T => {
        if (value == null)
            throw conversationNotFound(id);
        return value;
    };
    /** An absent body is an empty one. */
    const body = (raw: unknown): Record<string, unknown> => {
        if (raw != null && !isObject(raw))
            throw invalidRequestBody();
        return raw ?? {};
    };
    const itemMissing = (conversationId: string, itemId: string) => itemNotFound(
        `No item with id '${itemId}' in conversation '${conversationId}'.`
    );

    router.post("/conversations", async (req, res) => {
        const {items: raw, metadata} = checkBody(validateConversationCreate, body(req.body));
        const created = conversations.create(req.owner, items(req.owner, raw), metadata ?? {});
        await conversations.written();
        res.json(created);
    });

    router.get("/conversations/:id", (req, res) => {
        res.json(found(conversations.get(req.owner, req.params.id), req.params.id));
    });

    router.post("/conversations/:id", async (req, res) => {
        const {metadata} = checkBody(validateConversationUpdate, body(req.body));
        const updated = found(conversations.updateMetadata(req.owner, req.params.id, metadata ?? {}), req.params.id);
        await conversations.written();
        res.json(updated);
    });

    router.delete("/conversations/:id", (req, res) => {
        found(conversations.delete(req.owner, req.params.id) ? true : undefined, req.params.id);
        res.json({id: req.params.id, object: "conversation.deleted", deleted: true});
    });

    router.get("/conversations/:id/items", (req, res) => {
        const list = found(conversations.items(req.owner, req.params.id), req.params.id);
        res.json(pageById(list, req.query, (after) => `No item with id '${after}' in this conversation.`));
    });

    router.post("/conversations/:id/items", async (req, res) => {
        found(conversations.get(req.owner, req.params.id), req.params.id);
        const added = items(req.owner, checkBody(validateConversationItems, body(req.body)).items);
        conversations.append(req.owner, req.params.id, added);
        await conversations.written();
        res.json({object: "list", data: added, first_id: added[0]?.id ?? null, last_id: added.at(-1)?.id ?? null, has_more: false});
    });

    router.get("/conversations/:id/items/:itemId", (req, res) => {
        const item = found(conversations.items(req.owner, req.params.id), req.params.id).find((entry) => entry.id === req.params.itemId);
        if (item == null)
            throw itemMissing(req.params.id, req.params.itemId);
        res.json(item);
    });

    router.delete("/conversations/:id/items/:itemId", (req, res) => {
        const outcome = conversations.deleteItem(req.owner, req.params.id, req.params.itemId);
        found(outcome === "no_conversation" ? undefined : true, req.params.id);
        if (outcome === "no_item")
            throw itemMissing(req.params.id, req.params.itemId);
        res.json(conversations.get(req.owner, req.params.id));
    });

    return router;
}
