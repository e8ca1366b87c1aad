import {Router} from "express";
import type {Compactor} from "../../responses/compaction/Compactor.js";
import {compactResponse} from "../../responses/compaction/compactRequest.js";
import type {ResponsesService} from "../../responses/ResponsesService.js";

/** `POST /v1/responses/compact`: summarizes a history sent whole; nothing is stored. */
export function compactRouter(compactor: Compactor, responses: ResponsesService): Router {
    const router = Router();
    router.post("/responses/compact", async (req, res) => {
        const result = await compactResponse(compactor, (requested) => responses.servedModel(requested), req.body,
            (id) => responses.store.findItem(req.owner, id),
            responses.cachePartition(req.owner));
        res.locals.usage = {input: result.usage.input_tokens, output: result.usage.output_tokens};
        res.json(result);
    });
    return router;
}
