import {Router, type Request, type Response} from "express";
import type {ApiError} from "../../protocol/errors.js";
import {ChatChunkWriter} from "../../responses/chat/ChatChunkWriter.js";
import {toChatCompletion} from "../../responses/chat/chatCompletion.js";
import {parseChatRequest, type ChatRequest} from "../../responses/chat/chatRequest.js";
import {failedResponseError} from "../../responses/engineErrors.js";
import type {PreparedResponse} from "../../responses/pipeline/preparedResponse.js";
import type {ResponsesService} from "../../responses/ResponsesService.js";
import {sendApiError} from "../middleware/errorHandler.js";
import {SseStream} from "../sse.js";
import {answerAsStream, answerInOneBody, recordUsage} from "./foreground.js";
import type {ResponsesRouteOptions} from "./responses.js";

/**
 * `POST /v1/chat/completions`: a Chat Completions body mapped onto a Responses request (`parseChatRequest`) and run by
 * the same service as `POST /v1/responses` (prepare → admit → run: one engine, queue, limits, metrics and prompt
 * cache), never stored; the result answered as a `chat.completion`, or streamed as `chat.completion.chunk`s ending
 * in `data: [DONE]`.
 */
export function chatCompletionsRouter(service: ResponsesService, options: ResponsesRouteOptions = {}): Router {
    const router = Router();

    router.post("/chat/completions", async (req: Request, res: Response) => {
        const chat = parseChatRequest(req.body);
        const prepared = service.prepare(req.owner, chat.responsesBody, {stopSequences: chat.stopSequences, protocol: "chat_completions"});
        if (chat.stream)
            await stream(service, chat, prepared, res, options);
        else
            await complete(service, chat, prepared, res);
    });

    return router;
}

async function complete(service: ResponsesService, chat: ChatRequest, prepared: PreparedResponse, res: Response): Promise<void> {
    const response = await answerInOneBody(res, {
        admit: (signal) => service.admit(prepared, signal),
        run: (lease, signal) => service.run(prepared, lease, {signal})
    });
    if (response == null)
        return;
    if (response.status === "failed") {
        sendApiError(res, failedResponseError(response));
        return;
    }
    recordUsage(res, response);
    res.json(toChatCompletion(response, {logprobs: chat.logprobs}));
}

/** The stream ends in `data: [DONE]`; a failure is a `data: {"error": …}` chunk, as OpenAI sends one. */
async function stream(
    service: ResponsesService, chat: ChatRequest, prepared: PreparedResponse, res: Response, options: ResponsesRouteOptions
): Promise<void> {
    const sse = new SseStream(res, {keepAliveMs: options.streamKeepAliveMs, writeTimeoutMs: options.streamWriteTimeoutMs});
    const writer = new ChatChunkWriter((chunk, delta) => sse.sendData(JSON.stringify(chunk), delta), chat);
    const sendError = (error: ApiError) => sse.sendData(JSON.stringify(error.toBody()), false);
    await answerAsStream(res, sse, {
        admit: (signal) => service.admit(prepared, signal, () => service.announce(prepared, (event) => writer.onEvent(event))),
        run: (lease, signal) => service.run(prepared, lease, {signal, sink: (event) => writer.onEvent(event)})
    }, sendError, (response) => {
        if (response.status === "failed")
            sendError(failedResponseError(response));
        else
            recordUsage(res, response);
        sse.sendData("[DONE]", false);
    });
}
