import {Router} from "express";
import type {ChatEngine} from "../../engine/types.js";
import {chatFormatWire} from "./chatFormatWire.js";

/** `GET /v1/models`: the loaded model, under the name responses report. */
export function modelsRouter(engine: ChatEngine, startedAt: number): Router {
    const router = Router();
    const list = () => (engine.model == null ? [] : [{
        id: engine.model.id,
        object: "model" as const,
        created: startedAt,
        owned_by: "local-responses",
        context_window: engine.model.contextSize,
        ...chatFormatWire(engine.model)
    }]);

    router.get("/models", (_req, res) => {
        res.json({object: "list", data: list()});
    });
    router.get("/models/:id", (req, res, next) => {
        const model = list().find((entry) => entry.id === req.params.id);
        if (model == null)
            next();
        else
            res.json(model);
    });
    return router;
}
