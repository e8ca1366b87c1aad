import {Router, type Request, type Response} from "express";
import {parseCompletionsRequest} from "../../protocols/completions/completionsRequest.js";
import {TextCompletionWriter} from "../../protocols/completions/completionWire.js";
import {parseInfillRequest} from "../../protocols/infill/infillRequest.js";
import {infillAnswer, infillChunk} from "../../protocols/infill/infillWire.js";
import {completeWith, rawRouting, recordCompletion, streamCompletion, type RawRouteOptions} from "./rawRequests.js";

/**
 * `POST /v1/completions` (OpenAI's text completions, `text_completion` objects and chunks ending in `data: [DONE]`) and
 * `POST /infill` (llama.cpp server's fill-in-the-middle, as editors call it): raw text on the engine's `complete`, in
 * the caller's prompt-cache partition.
 */
export function completionsRouter(options: RawRouteOptions): Router {
    const router = Router();

    router.post("/completions", async (req: Request, res: Response) => {
        const request = parseCompletionsRequest(req.body);
        const {engine, model, routing} = rawRouting(options, req, res, {model: request.model, keepAlive: request.keepAlive});
        const writer = new TextCompletionWriter(model);
        const echoed = request.echo ? request.completion.prompt : "";
        if (!request.stream) {
            const result = await completeWith(engine, routing, request.completion);
            recordCompletion(options, req, res, {protocol: "completions", model, result});
            res.json(writer.completion(result, echoed));
            return;
        }
        await streamCompletion(options, res, async (send) => {
            let first = true;
            const result = await completeWith(engine, routing, request.completion, (text) => {
                send(writer.textChunk(first ? echoed + text : text));
                first = false;
            });
            if (first && echoed !== "")
                send(writer.textChunk(echoed));
            send(writer.finishChunk(result));
            if (request.includeUsage)
                send(writer.usageChunk(result));
            send("[DONE]");
            recordCompletion(options, req, res, {protocol: "completions", model, result});
        }, (error) => error.toBody());
    });

    router.post("/infill", async (req: Request, res: Response) => {
        const request = parseInfillRequest(req.body);
        const {engine, model, routing} = rawRouting(options, req, res, {model: request.model, keepAlive: request.keepAlive});
        // Without cache_prompt the prompt must not start from a cached prefix: a partition of its own starts it cold.
        const partition = request.cachePrompt ? routing.cachePartition : `${routing.cachePartition}\u0000uncached-${Math.random()}`;
        const uncached = {...routing, cachePartition: partition};
        if (!request.stream) {
            const result = await completeWith(engine, uncached, request.completion);
            recordCompletion(options, req, res, {protocol: "infill", model, result});
            res.json(infillAnswer(result, model, result.text));
            return;
        }
        await streamCompletion(options, res, async (send) => {
            const result = await completeWith(engine, uncached, request.completion, (text) => send(infillChunk(text)));
            send(infillAnswer(result, model, ""));
            recordCompletion(options, req, res, {protocol: "infill", model, result});
        }, (error) => error.toBody());
    });

    return router;
}
