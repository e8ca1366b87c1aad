import {Router, type Request, type Response} from "express";
import type {ApiError} from "../../protocol/errors.js";
import {ChatChunkWriter} from "../../responses/chat/ChatChunkWriter.js";
import {toChatCompletion} from "../../responses/chat/chatCompletion.js";
import {parseChatRequest, type ChatRequest} from "../../responses/chat/chatRequest.js";
import {failedResponseError, toApiError} from "../../responses/engineErrors.js";
import type {PreparedResponse} from "../../responses/preparedResponse.js";
import type {ResponsesService} from "../../responses/ResponsesService.js";
import {sendApiError} from "../middleware/errorHandler.js";
import {SseStream} from "../sse.js";
import {disconnectSignal, notingFailure, recordUsage, type ResponsesRouteOptions} from "./responses.js";

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
    const signal = disconnectSignal(res);
    const lease = await service.admit(prepared, signal);
    let engineFailure: unknown = undefined;
    const response = await service.run(prepared, notingFailure(lease, (error) => (engineFailure = error)), {signal});
    if (engineFailure !== undefined) {
        sendApiError(res, toApiError(engineFailure));
        return;
    }
    if (response.status === "failed") {
        sendApiError(res, failedResponseError(response));
        return;
    }
    recordUsage(res, response);
    res.json(toChatCompletion(response, {logprobs: chat.logprobs}));
}

/**
 * The stream opens while the request waits for a sequence (keep-alive comments cover the wait); a refusal before its
 * first byte keeps its own HTTP status, a later failure is a `data: {"error": …}` chunk, as OpenAI sends one.
 */
async function stream(
    service: ResponsesService, chat: ChatRequest, prepared: PreparedResponse, res: Response, options: ResponsesRouteOptions
): Promise<void> {
    const signal = disconnectSignal(res);
    const sse = new SseStream(res, {keepAliveMs: options.streamKeepAliveMs});
    const writer = new ChatChunkWriter((chunk, delta) => sse.sendData(JSON.stringify(chunk), delta), chat);
    const sendError = (error: ApiError) => sse.sendData(JSON.stringify(error.toBody()), false);
    let lease;
    try {
        lease = await service.admit(prepared, signal, () => service.announce(prepared, (event) => writer.onEvent(event)));
    } catch (error) {
        if (!sse.started) {
            sse.stopKeepAlive();
            throw error;
        }
        if (!signal.aborted)
            sendError(toApiError(error));
        sse.end();
        return;
    }
    try {
        const response = await service.run(prepared, lease, {signal, sink: (event) => writer.onEvent(event)});
        if (response.status === "failed")
            sendError(failedResponseError(response));
        else
            recordUsage(res, response);
        sse.sendData("[DONE]", false);
    } catch (error) {
        if (signal.aborted)
            return;
        if (sse.started)
            sendError(toApiError(error));
        throw error;
    } finally {
        sse.end();
    }
}
