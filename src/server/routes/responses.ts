import {Router, type Request, type Response} from "express";
import type {ResponsesService} from "../../responses/ResponsesService.js";
import {streamErrorEvent} from "../../responses/wireShapes.js";
import {SseStream} from "../sse.js";
import {BackgroundTransport, type BackgroundStreamOptions} from "./background.js";
import {answerAsStream, answerInOneBody, recordUsage} from "./foreground.js";

export type ResponsesRouteOptions = {
    /** Silence (ms) after which a stream gets a keep-alive comment; 0 or absent: none. */
    streamKeepAliveMs?: number,
    /** How long (ms) a foreground stream's reader may leave its socket full before it is cut (SseStream's `writeTimeoutMs`). */
    streamWriteTimeoutMs?: number,
    /** How background responses are streamed (absent: the service has no background mode, or it is not served). */
    background?: BackgroundStreamOptions
};

export function responsesRouter(service: ResponsesService, options: ResponsesRouteOptions = {}): Router {
    const router = Router();
    const background = service.background != null && options.background != null
        ? new BackgroundTransport(service.background, options.background) : null;
    if (background != null)
        router.use(background.router());

    router.post("/responses", async (req: Request, res: Response) => {
        const prepared = service.prepare(req.owner, req.body);
        if (background != null && service.background!.accepts(prepared)) {
            await background.create(res, prepared);
            return;
        }
        if (!prepared.params.stream) {
            const response = await answerInOneBody(res, {
                admit: (signal) => service.admit(prepared, signal),
                run: async (admitted, signal) => (await service.run(admitted, {signal})).response
            });
            if (response != null) {
                recordUsage(res, response);
                res.json(response);
            }
            return;
        }
        const stream = new SseStream(res, {
            keepAliveMs: options.streamKeepAliveMs, keepAliveEvents: true, writeTimeoutMs: options.streamWriteTimeoutMs
        });
        // A refusal after the stream opened is its only event (number 0); a failure while it runs takes the next number.
        let next = 0;
        await answerAsStream(res, stream, {
            admit: (signal) => service.admit(prepared, signal, (event) => stream.send(event)),
            run: async (admitted, signal) => (await service.run(admitted, {signal, sink: (event) => {
                next = event.sequence_number + 1;
                stream.send(event);
            }})).response
        }, (error) => stream.send({...streamErrorEvent(error.toBody().error), sequence_number: next}),
        (response) => recordUsage(res, response));
    });

    router.post("/responses/input_tokens", async (req, res) => {
        res.json(await service.countInputTokens(req.owner, req.body));
    });

    router.get("/responses/:id", async (req, res) => {
        if (background != null && req.query.stream === "true")
            await background.resume(res, req.owner, req.params.id, req.query.starting_after);
        else
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
