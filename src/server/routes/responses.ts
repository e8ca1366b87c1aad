import {Router, type Request, type Response} from "express";
import type {ResponsesService} from "../../responses/ResponsesService.js";
import type {ResponseObject} from "../../responses/wire.js";
import {SseStream} from "../sse.js";

/** An AbortSignal that fires when the client goes away before the response is finished. */
export function disconnectSignal(res: Response): AbortSignal {
    const controller = new AbortController();
    res.on("close", () => {
        if (!res.writableFinished)
            controller.abort(new Error("client disconnected"));
    });
    return controller.signal;
}

function recordUsage(res: Response, response: ResponseObject): void {
    if (response.usage != null)
        res.locals.usage = {input: response.usage.input_tokens, output: response.usage.output_tokens};
}

export function responsesRouter(service: ResponsesService): Router {
    const router = Router();

    router.post("/responses", async (req: Request, res: Response) => {
        const prepared = service.prepare(req.owner, req.body);
        const signal = disconnectSignal(res);
        const lease = await service.admit(prepared, signal);

        if (!prepared.params.stream) {
            const response = await service.run(prepared, lease, {signal});
            recordUsage(res, response);
            res.json(response);
            return;
        }

        const stream = new SseStream(res);
        try {
            const response = await service.run(prepared, lease, {signal, sink: (event) => stream.send(event)});
            recordUsage(res, response);
        } catch (error) {
            if (!signal.aborted)
                throw error;
        } finally {
            stream.end();
        }
    });

    router.post("/responses/input_tokens", async (req, res) => {
        res.json(await service.countInputTokens(req.owner, req.body));
    });

    router.get("/responses/:id", (req, res) => {
        res.json(service.retrieve(req.owner, req.params.id));
    });

    router.delete("/responses/:id", (req, res) => {
        res.json(service.delete(req.owner, req.params.id));
    });

    router.get("/responses/:id/input_items", (req, res) => {
        res.json(service.listInputItems(req.owner, req.params.id, req.query));
    });

    return router;
}
