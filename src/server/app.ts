import express, {type Express} from "express";
import type {ChatEngine} from "../engine/types.js";
import {ApiError} from "../responses/errors.js";
import type {ResponsesService} from "../responses/ResponsesService.js";
import {apiKeyAuth} from "./middleware/auth.js";
import {errorHandler} from "./middleware/errorHandler.js";
import {hostCheck} from "./middleware/hostCheck.js";
import {bodyErrors, jsonBody} from "./middleware/jsonBody.js";
import {originCheck} from "./middleware/originCheck.js";
import {requestLog, type RequestLogEntry} from "./middleware/requestLog.js";
import {modelsRouter} from "./routes/models.js";
import {responsesRouter} from "./routes/responses.js";

export type AppOptions = {
    engine: ChatEngine,
    responses: ResponsesService,
    /** API keys; empty means no authentication. Read on every request, so rotation applies at once. */
    apiKeys: () => readonly string[],
    /** Browser origins allowed to call the API (CORS); none by default. */
    allowedOrigins?: readonly string[],
    /** Host names accepted besides loopback names. */
    allowedHosts?: readonly string[],
    bodyLimitBytes?: number,
    onRequest?: (entry: RequestLogEntry) => void,
    log?: (line: string) => void
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
    app.use(hostCheck(options.allowedHosts));
    app.use(originCheck(options.allowedOrigins));
    app.use(apiKeyAuth(options.apiKeys));
    app.use(jsonBody(options.bodyLimitBytes));
    app.use(bodyErrors);

    const api = express.Router();
    api.use(responsesRouter(options.responses));
    api.use(modelsRouter(options.engine, Math.floor(Date.now() / 1000)));
    app.use("/v1", api);
    app.use(api);

    app.use((req, _res, next) => next(new ApiError(404, `No route for ${req.method} ${req.path}.`, {code: "unknown_route"})));
    app.use(errorHandler(options.log));
    return app;
}
