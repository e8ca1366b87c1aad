import {Router, type Request, type Response} from "express";
import {parseEmbeddingsRequest} from "../../protocols/completions/embeddingsRequest.js";
import {embeddingList} from "../../protocols/completions/embeddingWire.js";
import {rawRouting, type RawRouteOptions} from "./rawRequests.js";

/** `POST /v1/embeddings`: OpenAI's embedding list, from the engine's `embed` on the model the request names. */
export function embeddingsRouter(options: RawRouteOptions): Router {
    const router = Router();

    router.post("/embeddings", async (req: Request, res: Response) => {
        const request = parseEmbeddingsRequest(req.body);
        const {engine, model, routing} = rawRouting(options, req, res, {model: request.model, keepAlive: request.keepAlive});
        const started = performance.now();
        const result = await engine.embed({...routing, inputs: request.inputs});
        const body = embeddingList(result, model, request);
        res.locals.usage = {input: result.inputTokens, output: 0};
        options.metrics?.recordGeneration({
            protocol: "embeddings", model, owner: req.owner, inputTokens: result.inputTokens, cachedTokens: 0, outputTokens: 0,
            timeToFirstTokenMs: null, durationMs: performance.now() - started, status: "completed"
        });
        res.json(body);
    });

    return router;
}
