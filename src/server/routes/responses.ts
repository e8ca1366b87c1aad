import {Router, type Request, type Response} from "express";
import {GenerationAbort} from "../../responses/abortReasons.js";
import type {ResponsesService} from "../../responses/ResponsesService.js";
import {toApiError} from "../../responses/engineErrors.js";
import {streamErrorEvent} from "../../responses/wireShapes.js";
import type {EngineLease} from "../../engine/types.js";
import type {ResponseObject} from "../../protocol/wire.js";
import {sendApiError} from "../middleware/errorHandler.js";
import {SseStream} from "../sse.js";
import {BackgroundTransport, type BackgroundStreamOptions} from "./background.js";

/** An AbortSignal that fires when the client goes away before the response is finished. */
export function disconnectSignal(res: Response): AbortSignal {
    const controller = new AbortController();
    res.on("close", () => {
        if (!res.writableFinished)
            controller.abort(new GenerationAbort("client_disconnected", "client disconnected"));
    });
    return controller.signal;
}

/** What the request log counts for this request: the response's tokens. */
export function recordUsage(res: Response, response: ResponseObject): void {
    if (response.usage != null)
        res.locals.usage = {input: response.usage.input_tokens, output: response.usage.output_tokens};
}

/** The lease, telling `note` what its generation threw (the service still turns it into a `failed` response). */
export function notingFailure(lease: EngineLease, note: (error: unknown) => void): EngineLease {
    return {
        promptTokens: lease.promptTokens,
        cachedPrefixTokens: lease.cachedPrefixTokens,
        generate: (request) => lease.generate(request).catch((error: unknown) => {
            note(error);
            throw error;
        }),
        release: () => lease.release()
    };
}

export type ResponsesRouteOptions = {
    /** Silence (ms) after which a stream gets a keep-alive comment; 0 or absent: none. */
    streamKeepAliveMs?: number,
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
        const signal = disconnectSignal(res);
        if (!prepared.params.stream) {
            const lease = await service.admit(prepared, signal);
            let engineFailure: unknown = undefined;
            const response = await service.run(prepared, notingFailure(lease, (error) => (engineFailure = error)), {signal});
            // A synchronous create whose generation failed answers, as OpenAI's does, with the failure's HTTP
            // status and error shape (502/504 for an upstream, 500 for the local engine), not a 200 carrying a
            // `failed` object no one can retrieve. A failed validation of the model's output (`invalid_output`)
            // is not an engine failure: that stays a `failed` response with its usage. Answered here, not thrown
            // to the error handler: the generation logged its failure already.
            if (engineFailure !== undefined) {
                sendApiError(res, toApiError(engineFailure));
                return;
            }
            recordUsage(res, response);
            res.json(response);
            return;
        }

        // The stream exists while the request waits for a sequence (or compacts), so a long wait gets keep-alives
        // too; a refusal before its first byte keeps its own HTTP status, a later one is the stream's `error` event.
        const stream = new SseStream(res, {keepAliveMs: options.streamKeepAliveMs, keepAliveEvents: true});
        let lease;
        try {
            lease = await service.admit(prepared, signal, () => service.announce(prepared, (event) => stream.send(event)));
        } catch (error) {
            if (!stream.started) {
                stream.stopKeepAlive();
                throw error;
            }
            if (!signal.aborted)
                // A refusal that comes after the stream opened: its only event.
                stream.send({...streamErrorEvent(toApiError(error).toBody().error), sequence_number: 0});
            stream.end();
            return;
        }
        let next = 0;
        try {
            const response = await service.run(prepared, lease, {signal, sink: (event) => {
                next = event.sequence_number + 1;
                stream.send(event);
            }});
            recordUsage(res, response);
        } catch (error) {
            if (signal.aborted)
                return;
            // A failure after the stream opened (the store refused the finished response: 507/503) is its `error`
            // event, in place of `response.completed`; the error handler logs it.
            if (stream.started)
                stream.send({...streamErrorEvent(toApiError(error).toBody().error), sequence_number: next});
            throw error;
        } finally {
            stream.end();
        }
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
