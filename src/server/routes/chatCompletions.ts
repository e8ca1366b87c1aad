import {Router, type Request, type Response} from "express";
import type {ApiError} from "../../protocol/errors.js";
import type {ChatCompletionsService, PreparedChat} from "../../protocols/chat/ChatCompletionsService.js";
import {failedResponseError} from "../../responses/engineErrors.js";
import {SseStream} from "../sse.js";
import {answerAsStream, answerWithAdapter, recordUsage} from "./foreground.js";
import type {ResponsesRouteOptions} from "./responses.js";

/**
 * `POST /v1/chat/completions`, mounted over `ChatCompletionsService`: answered as a `chat.completion`, or streamed as
 * `chat.completion.chunk`s ending in `data: [DONE]`.
 */
export function chatCompletionsRouter(service: ChatCompletionsService, options: ResponsesRouteOptions = {}): Router {
    const router = Router();

    router.post("/chat/completions", async (req: Request, res: Response) => {
        const chat = service.prepare(req.owner, req.body);
        if (service.streams(chat))
            await stream(service, chat, res, options);
        else
            await answerWithAdapter(res, service, chat);
    });

    return router;
}

/** The stream ends in `data: [DONE]`; a failure is a `data: {"error": …}` chunk, as OpenAI sends one. */
async function stream(service: ChatCompletionsService, chat: PreparedChat, res: Response, options: ResponsesRouteOptions): Promise<void> {
    const sse = new SseStream(res, {keepAliveMs: options.streamKeepAliveMs, writeTimeoutMs: options.streamWriteTimeoutMs});
    const chunks = service.stream(chat, (chunk, delta) => sse.sendData(JSON.stringify(chunk), delta));
    const sendError = (error: ApiError) => sse.sendData(JSON.stringify(error.toBody()), false);
    await answerAsStream(res, sse, {
        admit: (signal) => service.admit(chat, signal, chunks),
        run: (admitted, signal) => service.runStream(admitted, chunks, signal)
    }, sendError, (response) => {
        if (response.status === "failed")
            sendError(failedResponseError(response));
        else
            recordUsage(res, response);
        sse.sendData("[DONE]", false);
    });
}
