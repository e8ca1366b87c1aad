import {Router, type Response} from "express";
import {eventsNotRetained, invalidRequest, responseActive, responseNotFound} from "../../protocol/errors.js";
import {isObject} from "../../protocol/isObject.js";
import type {ResponsesService} from "../../responses/ResponsesService.js";
import type {BackgroundJobs} from "../../responses/background/BackgroundJobs.js";
import type {JobEventLog} from "../../responses/background/JobEventLog.js";
import type {StreamReaderSlots} from "../StreamReaderSlots.js";
import {checkCursor, parseCursor, streamJobEvents} from "../jobStream.js";

export type BackgroundRouteOptions = {
    responses: ResponsesService,
    jobs: BackgroundJobs,
    readers: StreamReaderSlots,
    /** A background stream whose socket stays unwritable this long is cut (the job goes on). */
    streamWriteTimeoutMs: number,
    /** Silence (ms) after which a stream gets a keep-alive comment; 0 or absent: none. */
    streamKeepAliveMs?: number
};

/**
 * Background responses over HTTP: creation (`background: true`), polling, resumable streams, cancel, and the
 * delete/retrieve rules of active jobs. Mounted before the plain responses routes: what is not a background
 * job falls through to them.
 */
export function backgroundRouter(options: BackgroundRouteOptions): Router {
    const {responses, jobs, readers} = options;
    const router = Router();

    /** Streams a job's events to one reader holding a reader slot, and frees the slot when the reader is done. */
    const follow = async (res: Response, log: JobEventLog, after: number, release: () => void) => {
        try {
            await streamJobEvents(res, log, after, {writeTimeoutMs: options.streamWriteTimeoutMs, keepAliveMs: options.streamKeepAliveMs});
        } finally {
            release();
        }
    };

    router.post("/responses", async (req, res, next) => {
        if (!isObject(req.body) || req.body.background !== true) {
            next();
            return;
        }
        const prepared = responses.prepare(req.owner, req.body);
        if (!responses.store.enabled)
            throw invalidRequest("Background responses need the response store, which is disabled on this server.", "background",
                "unsupported_parameter");
        // A reader slot is taken before admission, so a refused stream creates no job.
        const release = prepared.params.stream ? readers.acquire(req.owner) : null;
        let created;
        try {
            created = jobs.submit(prepared);
        } catch (error) {
            release?.();
            throw error;
        }
        if (release == null) {
            res.json(created);
            return;
        }
        await follow(res, jobs.get(req.owner, created.id)!.log, -1, release);
    });

    router.get("/responses/:id", async (req, res, next) => {
        const job = jobs.get(req.owner, req.params.id);
        if (req.query.stream !== "true") {
            if (job == null)
                next();
            else
                res.json(jobs.view(job));
            return;
        }
        const after = parseCursor(req.query.starting_after);
        if (job == null) {
            if (responses.store.has(req.owner, req.params.id))
                throw eventsNotRetained(req.params.id);
            throw responseNotFound(req.params.id);
        }
        checkCursor(job.log, after);
        await follow(res, job.log, after, readers.acquire(req.owner));
    });

    router.post("/responses/:id/cancel", async (req, res) => {
        const job = jobs.get(req.owner, req.params.id);
        if (job != null) {
            res.json(await jobs.cancel(job));
            return;
        }
        const stored = responses.store.get(req.owner, req.params.id);
        if (stored == null)
            throw responseNotFound(req.params.id);
        if (!stored.response.background)
            throw invalidRequest("Only background responses can be cancelled.", null, "not_cancellable");
        // A background response whose job record expired is terminal: cancelling again changes nothing.
        res.json(stored.response);
    });

    router.delete("/responses/:id", (req, res, next) => {
        const job = jobs.get(req.owner, req.params.id);
        if (job == null) {
            next();
            return;
        }
        if (!jobs.forget(job))
            throw responseActive(job.id, job.payload.response.status);
        responses.store.delete(req.owner, job.id);
        res.json({id: job.id, object: "response.deleted", deleted: true});
    });

    return router;
}
