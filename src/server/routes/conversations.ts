import {Router} from "express";
import {ApiError, invalidRequest, invalidRequestBody} from "../../protocol/errors.js";
import {normalizeInput} from "../../responses/inputItems.js";
import {isObject} from "../../protocol/isObject.js";
import {pageById} from "../../responses/pagination.js";
import type {ResponseStore} from "../../store/ResponseStore.js";
import type {ConversationStore} from "../../store/ConversationStore.js";

/** OpenAI caps items per create/add call at 20. */
const maxItemsPerCall = 20;

/**
 * OpenAI's Conversations API over the conversation store: conversations and their items, isolated per key.
 * Items are normalized like response input (ids assigned, `item_reference` resolved against the caller's responses).
 */
export function conversationsRouter(conversations: ConversationStore, responses: ResponseStore): Router {
    const router = Router();

    router.use("/conversations", (_req, _res, next) => {
        next(conversations.enabled ? undefined : invalidRequest("Conversations are disabled on this server (conversation store entries is 0).", null, "unsupported_parameter"));
    });

    const items = (owner: string, raw: unknown, required: boolean) => {
        if (raw == null && !required)
            return [];
        if (!Array.isArray(raw))
            throw invalidRequest("'items' must be an array of items.", "items", raw == null ? "missing_required_parameter" : "invalid_type");
        if (raw.length > maxItemsPerCall)
            throw invalidRequest(`At most ${maxItemsPerCall} items can be added at once.`, "items");
        return normalizeInput(raw, (id) => responses.findItem(owner, id));
    };
    const found = <T>(value: T | undefined, id: string): T => {
        if (value == null)
            throw new ApiError(404, `No conversation found with id '${id}'.`, {code: "conversation_not_found"});
        return value;
    };
    const body = (raw: unknown): Record<string, unknown> => {
        if (raw != null && !isObject(raw))
            throw invalidRequestBody();
        return (raw ?? {}) as Record<string, unknown>;
    };

    router.post("/conversations", (req, res) => {
        const {items: raw, metadata} = body(req.body);
        res.json(conversations.create(req.owner, items(req.owner, raw, false), parseMetadata(metadata)));
    });

    router.get("/conversations/:id", (req, res) => {
        res.json(found(conversations.get(req.owner, req.params.id), req.params.id));
    });

    router.post("/conversations/:id", (req, res) => {
        const {metadata} = body(req.body);
        if (metadata === undefined)
            throw invalidRequest("'metadata' is required.", "metadata", "missing_required_parameter");
        res.json(found(conversations.updateMetadata(req.owner, req.params.id, parseMetadata(metadata)), req.params.id));
    });

    router.delete("/conversations/:id", (req, res) => {
        found(conversations.delete(req.owner, req.params.id) ? true : undefined, req.params.id);
        res.json({id: req.params.id, object: "conversation.deleted", deleted: true});
    });

    router.get("/conversations/:id/items", (req, res) => {
        const list = found(conversations.items(req.owner, req.params.id), req.params.id);
        res.json(pageById(list, req.query, (after) => `No item with id '${after}' in this conversation.`));
    });

    router.post("/conversations/:id/items", (req, res) => {
        found(conversations.get(req.owner, req.params.id), req.params.id);
        const added = items(req.owner, body(req.body).items, true);
        conversations.append(req.owner, req.params.id, added);
        res.json({object: "list", data: added, first_id: added[0]?.id ?? null, last_id: added.at(-1)?.id ?? null, has_more: false});
    });

    router.get("/conversations/:id/items/:itemId", (req, res) => {
        const item = found(conversations.items(req.owner, req.params.id), req.params.id).find((entry) => entry.id === req.params.itemId);
        if (item == null)
            throw new ApiError(404, `No item with id '${req.params.itemId}' in conversation '${req.params.id}'.`, {code: "item_not_found"});
        res.json(item);
    });

    router.delete("/conversations/:id/items/:itemId", (req, res) => {
        const outcome = conversations.deleteItem(req.owner, req.params.id, req.params.itemId);
        found(outcome === "no_conversation" ? undefined : true, req.params.id);
        if (outcome === "no_item")
            throw new ApiError(404, `No item with id '${req.params.itemId}' in conversation '${req.params.id}'.`, {code: "item_not_found"});
        res.json(conversations.get(req.owner, req.params.id));
    });

    return router;
}

/** OpenAI's metadata rule: at most 16 string pairs, keys up to 64 characters, values up to 512. */
function parseMetadata(raw: unknown): Record<string, string> {
    if (raw == null)
        return {};
    if (!isObject(raw))
        throw invalidRequest("'metadata' must be an object of strings.", "metadata", "invalid_type");
    const entries = Object.entries(raw);
    if (entries.length > 16 || entries.some(([key, value]) => key.length > 64 || typeof value !== "string" || value.length > 512))
        throw invalidRequest("'metadata' takes at most 16 string values, keys up to 64 characters and values up to 512.", "metadata");
    return raw as Record<string, string>;
}
