import {Router} from "express";
import type {ConversationsService} from "../../responses/ConversationsService.js";

/** OpenAI's Conversations API over HTTP: each route reads the request, calls the service and writes its answer. */
export function conversationsRouter(service: ConversationsService): Router {
    const router = Router();

    router.use("/conversations", (_req, _res, next) => {
        service.checkEnabled();
        next();
    });
    router.post("/conversations", async (req, res) => {
        res.json(await service.create(req.owner, req.body));
    });
    router.get("/conversations/:id", (req, res) => {
        res.json(service.get(req.owner, req.params.id));
    });
    router.post("/conversations/:id", async (req, res) => {
        res.json(await service.update(req.owner, req.params.id, req.body));
    });
    router.delete("/conversations/:id", (req, res) => {
        res.json(service.delete(req.owner, req.params.id));
    });
    router.get("/conversations/:id/items", (req, res) => {
        res.json(service.listItems(req.owner, req.params.id, req.query));
    });
    router.post("/conversations/:id/items", async (req, res) => {
        res.json(await service.addItems(req.owner, req.params.id, req.body));
    });
    router.get("/conversations/:id/items/:itemId", (req, res) => {
        res.json(service.getItem(req.owner, req.params.id, req.params.itemId));
    });
    router.delete("/conversations/:id/items/:itemId", (req, res) => {
        res.json(service.deleteItem(req.owner, req.params.id, req.params.itemId));
    });
    return router;
}
