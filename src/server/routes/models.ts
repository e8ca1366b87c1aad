import {Router, type Request} from "express";
import type {ChatEngine, LibraryModel, ModelDirectory, ModelInfo} from "../../engine/types.js";
import {codexModelEntry} from "./codexModels.js";
import {chatFormatWire} from "./chatFormatWire.js";
import {parseKeepAlive} from "../../responses/keepAlive.js";
import {isObject} from "../../protocol/isObject.js";
import {disconnectSignal} from "./foreground.js";
import {notAnOperatorKey} from "../../protocol/errors.js";
import type {ModelAccess} from "../modelAccess.js";
import {seenUse} from "../modelUseView.js";

/** OpenAI's model object, with what a local server adds: the context, the chat format, and a library model's state. */
type ModelObject = {id: string, object: "model", created: number, owned_by: string, context_window: number | null}
    & Record<string, unknown>;

/**
 * `GET /v1/models` (`/v1/models/{id}`): the loaded model, or every model of a library with its state; with Codex's
 * `client_version` query, Codex's `models` list beside OpenAI's `data`. A library adds `POST /v1/models/{id}/load` and
 * `/unload` (llama.cpp's router has the same two).
 */
export function modelsRouter(engine: ChatEngine, startedAt: number, access: ModelAccess): Router {
    const router = Router();
    const object = (info: ModelInfo): ModelObject => ({
        id: info.id, object: "model", created: startedAt, owned_by: "local-responses", context_window: info.contextSize,
        ...chatFormatWire(info)
    });
    const list = (req: Request): ModelObject[] => {
        const library = engine.library;
        const viewer = access.seesAll(req.owner) ? null : req.owner;
        if (library != null)
            return library.list().map((model) => libraryObject(model, startedAt, viewer));
        return engine.model == null ? [] : [object(engine.model)];
    };

    router.get("/models", (req, res) => {
        const data = list(req);
        res.json({object: "list", data, ...codexAsks(req) && {models: data.map((model, index) => codexModelEntry(model, index))}});
    });
    router.get("/models/:id", (req, res, next) => {
        const id = findId(engine.library, req.params.id) ?? req.params.id;
        const model = list(req).find((entry) => entry.id === id);
        if (model == null)
            next();
        else
            res.json(model);
    });
    router.post("/models/:id/load", async (req, res, next) => {
        const library = engine.library;
        if (library == null)
            return next();
        // An engine error (404 model_not_found, 503 model_memory_exceeded) is the error handler's to map.
        const id = library.resolve(req.params.id);
        // Ollama's `keep_alive` (a body is optional): how long it stays loaded once idle, as on a generation request.
        const keepAliveMs = parseKeepAlive((isObject(req.body) ? req.body.keep_alive : undefined) as number | string | undefined);
        await library.loadModel(id, undefined, keepAliveMs, req.owner);
        res.json(list(req).find((model) => model.id === id)!);
    });
    router.post("/models/:id/unload", async (req, res, next) => {
        const library = engine.library;
        if (library == null)
            return next();
        if (!access.mayManage(req.owner))
            throw notAnOperatorKey("Unloading a model");
        const id = library.resolve(req.params.id);
        // It waits for the model's requests to end, and stops waiting when its own client goes.
        const unloaded = await library.unloadModel(id, disconnectSignal(res));
        res.json({...list(req).find((model) => model.id === id)!, unloaded});
    });
    return router;
}

/** Codex asks with `?client_version=`: it reads `models`, OpenAI's SDKs `data`. */
function codexAsks(req: Request): boolean {
    return typeof req.query.client_version === "string";
}

function findId(library: ModelDirectory | undefined, name: string): string | null {
    try {
        return library?.resolve(name) ?? null;
    } catch {
        return null;
    }
}

/**
 * A library model as `/v1/models` lists it: OpenAI's fields, then its state, size, memory and use. An upstream's model
 * served beside the library says so (`owned_by` and `engine` `upstream`, the upstreams' hosts) and has no file or memory here.
 */
function libraryObject(model: LibraryModel, startedAt: number, viewer: string | null): ModelObject {
    const use = seenUse(model, viewer);
    if (model.upstreamHosts != null)
        return {
            id: model.id, object: "model", created: startedAt, owned_by: "upstream", context_window: model.contextSize,
            engine: "upstream", upstream_hosts: model.upstreamHosts, status: model.status, in_flight: model.inFlight,
            last_used_at: use.lastUsedAt
        };
    return {
        id: model.id, object: "model", created: startedAt, owned_by: "local-responses",
        context_window: model.info?.contextSize ?? model.contextSize,
        ...model.info != null && chatFormatWire(model.info),
        status: model.status,
        ...model.failure != null && {failure: model.failure},
        aliases: model.aliases,
        size_bytes: model.fileBytes,
        quantization: model.quantization,
        memory_estimate_bytes: model.estimatedBytes,
        in_flight: model.inFlight,
        last_used_at: use.lastUsedAt,
        keep_alive_seconds: model.keepAliveMs == null ? null : model.keepAliveMs / 1000,
        expires_at: use.expiresAt
    };
}
