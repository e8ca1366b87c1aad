import express, {type Express} from "express";
import type {ChatEngine} from "../engine/types.js";
import {unknownRoute} from "../protocol/errors.js";
import type {Compactor} from "../responses/compaction/Compactor.js";
import type {ResponsesService} from "../responses/ResponsesService.js";
import type {ChatCompletionsService} from "../protocols/chat/ChatCompletionsService.js";
import type {MessagesService} from "../protocols/messages/MessagesService.js";
import type {ConversationsService} from "../responses/ConversationsService.js";
import type {BackgroundJobs} from "../responses/background/BackgroundJobs.js";
import type {StreamReaderSlots} from "./StreamReaderSlots.js";
import type {ServerMetrics, StoreOccupancy} from "./metrics.js";
import {apiKeyAuth} from "./middleware/auth.js";
import {checkPin, modelAccess, type ModelAccess} from "./modelAccess.js";
import {errorHandler} from "./middleware/errorHandler.js";
import {hostCheck} from "./middleware/hostCheck.js";
import {bodyErrors, jsonBody} from "./middleware/jsonBody.js";
import {originCheck} from "./middleware/originCheck.js";
import {requestLog, type RequestLogEntry} from "./middleware/requestLog.js";
import {chatCompletionsRouter} from "./routes/chatCompletions.js";
import {compactRouter} from "./routes/compact.js";
import {completionsRouter} from "./routes/completions.js";
import {RawRequests} from "../protocols/RawRequests.js";
import {CompletionsService} from "../protocols/completions/CompletionsService.js";
import {EmbeddingsService} from "../protocols/completions/EmbeddingsService.js";
import {InfillService} from "../protocols/infill/InfillService.js";
import {embeddingsRouter} from "./routes/embeddings.js";
import {conversationsRouter} from "./routes/conversations.js";
import {messagesRouter} from "./routes/messages.js";
import {modelsRouter} from "./routes/models.js";
import {responsesRouter} from "./routes/responses.js";
import {statusRouter} from "./routes/status.js";

export type AppOptions = {
    engine: ChatEngine,
    responses: ResponsesService,
    /** Chat Completions and Anthropic Messages on the Responses service: built by the composition root (the host). */
    chat: ChatCompletionsService,
    messages: MessagesService,
    /** API keys (the operator's among them); empty means no authentication. Read on every request, so rotation applies at once. */
    apiKeys: () => readonly string[],
    /** Who sees all traffic and may unload and pin models (`modelAccess`); defaults to no operator's keys. */
    access?: ModelAccess,
    /** Browser origins allowed to call the API (CORS); none by default. */
    allowedOrigins?: readonly string[],
    bodyLimitBytes?: number,
    /** Silence (ms) after which an SSE stream gets a keep-alive comment; 0 or absent: none. */
    streamKeepAliveMs?: number,
    /** How long (ms) a stream's reader may leave its socket full before it is cut, and its generation with it. */
    streamWriteTimeoutMs?: number,
    onRequest?: (entry: RequestLogEntry) => void,
    /** Background jobs, compaction, conversations, status and metrics (absent: plain stateless Responses only). */
    stateful?: StatefulOptions,
    log?: (line: string) => void
};

export type StatefulOptions = {
    jobs: BackgroundJobs,
    readers: StreamReaderSlots,
    /** The stores' occupancy for status and metrics (the services hold the stores themselves behind their ports). */
    store: StoreOccupancy,
    conversations: StoreOccupancy,
    compactor: Compactor,
    conversationsService: ConversationsService,
    metrics: ServerMetrics,
    streamWriteTimeoutMs: number,
    /** Every key sees the server-wide traffic on /metrics and /v1/status (else, with several keys, its own). */
    statusAllKeys?: boolean
};

/**
 * The HTTP face: security checks first (Host, Origin, key), then JSON parsing, then the routes,
 * mounted under `/v1` and without it.
 */
export function createApp(options: AppOptions): Express {
    const app = express();
    app.disable("x-powered-by");
    app.set("etag", false);
    if (options.onRequest != null)
        app.use(requestLog(options.onRequest));
    const stateful = options.stateful;
    if (stateful != null)
        app.use(stateful.metrics.middleware());
    app.use(hostCheck());
    app.use(originCheck(options.allowedOrigins));
    app.use(apiKeyAuth(options.apiKeys));
    app.use(jsonBody(options.bodyLimitBytes));
    app.use(bodyErrors);
    const access = options.access
        ?? modelAccess({apiKeys: options.apiKeys, adminApiKeys: () => [], statusAllKeys: stateful?.statusAllKeys});
    // Any request may carry Ollama's keep_alive; a pin is refused here, in the protocol's shape, before any generation.
    app.use((req, _res, next) => {
        if (req.method === "POST")
            checkPin(access, req.owner, req.body);
        next();
    });

    const api = express.Router();
    if (stateful != null) {
        api.use(statusRouter({engine: options.engine, ...stateful}, stateful.metrics, (owner) => access.seesAll(owner)));
        api.use(compactRouter(stateful.compactor, options.responses));
        api.use(conversationsRouter(stateful.conversationsService));
    }
    const streams = {streamKeepAliveMs: options.streamKeepAliveMs, streamWriteTimeoutMs: options.streamWriteTimeoutMs};
    api.use(responsesRouter(options.responses, {
        ...streams,
        background: stateful == null ? undefined : {
            readers: stateful.readers, streamWriteTimeoutMs: stateful.streamWriteTimeoutMs, streamKeepAliveMs: options.streamKeepAliveMs
        }
    }));
    api.use(chatCompletionsRouter(options.chat, streams));
    api.use(messagesRouter(options.messages, streams));
    // Raw text, fill-in-the-middle and embeddings: on the engine itself, in the caller's prompt-cache partition.
    const raw = new RawRequests({
        engine: options.engine, cachePartition: (owner) => options.responses.cachePartition(owner),
        onFinished: stateful == null ? undefined : (stats) => stateful.metrics.recordGeneration(stats)
    });
    api.use(completionsRouter({completions: new CompletionsService(raw), infill: new InfillService(raw)}, streams));
    api.use(embeddingsRouter(new EmbeddingsService(raw)));
    api.use(modelsRouter(options.engine, Math.floor(Date.now() / 1000), access));
    app.use("/v1", api);
    app.use(api);

    app.use((req, _res, next) => next(unknownRoute(`No route for ${req.method} ${req.path}.`)));
    app.use(errorHandler(options.log));
    return app;
}
