import {Router, type Request, type Response} from "express";
import type {MessagesService} from "../../protocols/messages/MessagesService.js";
import {toApiError} from "../../responses/engineErrors.js";
import type {MessageObject} from "../../protocols/messages/messagesWire.js";
import {toMessagesError} from "../../protocols/messages/messagesErrors.js";
import {SseStream} from "../sse.js";
import type {AdmittedResponse} from "../../responses/pipeline/preparedResponse.js";
import {answerAsStream, answerInOneBody} from "./foreground.js";
import type {ResponsesRouteOptions} from "./responses.js";

/** Anthropic's keep-alive, sent while a long prompt is evaluated (its clients count it as activity). */
const ping = {type: "ping"};

/** A failure after the stream opened: Anthropic's `error` event. */
function errorEvent(error: unknown) {
    return toMessagesError(toApiError(error)).body;
}

function recordUsage(res: Response, message: MessageObject): void {
    const {usage} = message;
    res.locals.usage = {input: usage.input_tokens + usage.cache_read_input_tokens, output: usage.output_tokens};
}

/**
 * Anthropic's Messages API: `POST /v1/messages` (stream or not) and `POST /v1/messages/count_tokens`. The
 * `anthropic-version` and `anthropic-beta` headers and `?beta=true` are accepted and change nothing; errors on these
 * paths are Anthropic's shape (`sendApiError`).
 */
export function messagesRouter(service: MessagesService, options: ResponsesRouteOptions = {}): Router {
    const router = Router();

    router.post("/messages", async (req: Request, res: Response) => {
        const message = service.prepare(req.owner, req.body);
        const admit = (signal: AbortSignal) => service.admit(message, signal);
        if (!message.request.stream) {
            // As for Responses: a failed generation answers with its own status, never a 200.
            const result = await answerInOneBody(res, {admit, run: (admitted, signal) => service.run(message, admitted, {signal})});
            if (result != null) {
                recordUsage(res, result);
                res.json(result);
            }
            return;
        }
        // Keep-alives are comments while the request waits for a sequence, then `ping` once `message_start` is out.
        const stream = new SseStream(res, {
            keepAliveMs: options.streamKeepAliveMs, keepAliveEvent: ping, writeTimeoutMs: options.streamWriteTimeoutMs
        });
        const run = (admitted: AdmittedResponse, signal: AbortSignal) =>
            service.run(message, admitted, {signal, sink: (event) => stream.send(event)});
        await answerAsStream(res, stream, {admit, run}, (error) => stream.send(errorEvent(error)), (result) => recordUsage(res, result));
    });

    router.post("/messages/count_tokens", async (req, res) => {
        res.json(await service.countTokens(req.owner, req.body));
    });

    return router;
}
