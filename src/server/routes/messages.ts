import {Router, type Request, type Response} from "express";
import {messageUsage, type MessagesService} from "../../protocols/messages/MessagesService.js";
import {SseStream} from "../sse.js";
import type {AdmittedResponse} from "../../responses/pipeline/preparedResponse.js";
import {answerAsStream, answerWithAdapter} from "./foreground.js";
import type {ResponsesRouteOptions} from "./responses.js";

/** Anthropic's keep-alive, sent while a long prompt is evaluated (its clients count it as activity). */
const ping = {type: "ping"};

/**
 * Anthropic's Messages API: `POST /v1/messages` (stream or not) and `POST /v1/messages/count_tokens`. The
 * `anthropic-version` and `anthropic-beta` headers and `?beta=true` are accepted and change nothing; errors on these
 * paths are Anthropic's shape (`sendApiError`).
 */
export function messagesRouter(service: MessagesService, options: ResponsesRouteOptions = {}): Router {
    const router = Router();

    router.post("/messages", async (req: Request, res: Response) => {
        const message = service.prepare(req.owner, req.body);
        if (!service.streams(message)) {
            // As for Responses: a failed generation answers with its own status, never a 200.
            await answerWithAdapter(res, service, message);
            return;
        }
        // Keep-alives are comments while the request waits for a sequence, then `ping` once `message_start` is out.
        const stream = new SseStream(res, {
            keepAliveMs: options.streamKeepAliveMs, keepAliveEvent: ping, writeTimeoutMs: options.streamWriteTimeoutMs
        });
        const run = (admitted: AdmittedResponse, signal: AbortSignal) =>
            service.run(message, admitted, {signal, sink: (event) => stream.send(event)});
        const admit = (signal: AbortSignal) => service.admit(message, signal);
        await answerAsStream(res, stream, {admit, run}, (error) => stream.send(service.streamError(error)), (result) => {
            res.locals.usage = messageUsage(result);
        });
    });

    router.post("/messages/count_tokens", async (req, res) => {
        res.json(await service.countTokens(req.owner, req.body));
    });

    return router;
}
