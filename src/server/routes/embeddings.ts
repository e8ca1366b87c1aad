import {Router, type Request, type Response} from "express";
import type {EmbeddingsService} from "../../protocols/completions/EmbeddingsService.js";
import {answer} from "./completions.js";
import {disconnectSignal} from "./foreground.js";

/** `POST /v1/embeddings`, mounted over its service: OpenAI's embedding list. */
export function embeddingsRouter(service: EmbeddingsService): Router {
    const router = Router();
    router.post("/embeddings", async (req: Request, res: Response) => {
        answer(res, await service.answer(req.owner, req.body, disconnectSignal(res)));
    });
    return router;
}
