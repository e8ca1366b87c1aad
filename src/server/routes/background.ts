import {Router, type Response} from "express";
import type {BackgroundResponses} from "../../responses/background/BackgroundResponses.js";
import type {JobEventLog} from "../../responses/background/JobEventLog.js";
import type {PreparedResponse} from "../../responses/pipeline/preparedResponse.js";
import type {StreamReaderSlots} from "../StreamReaderSlots.js";
import {checkCursor, parseCursor, streamJobEvents} from "../jobStream.js";

/** How background streams are served: reader slots, and when a slow or silent socket is cut or kept alive. */
export type BackgroundStreamOptions = {
    readers: StreamReaderSlots,
    /** A background stream whose socket stays unwritable this long is cut (the job goes on). */
    streamWriteTimeoutMs: number,
    /** Silence (ms) after which a stream gets a keep-alive comment; 0 or absent: none. */
    streamKeepAliveMs?: number
};

/**
 * Background responses over HTTP, the transport half (the rules are `BackgroundResponses`'): creation answers the
 * `queued` object or streams the job's events; `GET /responses/:id?stream=true` resumes a stream; cancel.
 */
export class BackgroundTransport {
    public constructor(private readonly background: BackgroundResponses, private readonly options: BackgroundStreamOptions) {}

    /** Answers a create call with `background: true`. A reader slot is taken before admission, so a refused stream creates no job. */
    public async create(res: Response, prepared: PreparedResponse): Promise<void> {
        this.background.checkAvailable();
        const release = prepared.params.stream ? this.options.readers.acquire(prepared.owner) : null;
        let log;
        try {
            const created = this.background.create(prepared);
            if (release == null) {
                res.json(created.created);
                return;
            }
            log = created.log;
        } catch (error) {
            release?.();
            throw error;
        }
        await this.follow(res, log, -1, release!);
    }

    /** `GET /responses/:id?stream=true`: the job's events after `starting_after`, then its live ones. */
    public async resume(res: Response, owner: string, id: string, rawCursor: unknown): Promise<void> {
        const after = parseCursor(rawCursor);
        const log = this.background.events(owner, id);
        checkCursor(log, after);
        await this.follow(res, log, after, this.options.readers.acquire(owner));
    }

    /** `POST /responses/:id/cancel`. */
    public router(): Router {
        const router = Router();
        router.post("/responses/:id/cancel", async (req, res) => {
            res.json(await this.background.cancel(req.owner, req.params.id));
        });
        return router;
    }

    /** Streams a job's events to one reader holding a reader slot, and frees the slot when the reader is done. */
    private async follow(res: Response, log: JobEventLog, after: number, release: () => void): Promise<void> {
        try {
            await streamJobEvents(res, log, after, {
                writeTimeoutMs: this.options.streamWriteTimeoutMs, keepAliveMs: this.options.streamKeepAliveMs
            });
        } finally {
            release();
        }
    }
}
