import type {Response} from "express";
import type {ApiError} from "../../protocol/errors.js";
import {toApiError} from "../../responses/engineErrors.js";
import {SseStream} from "../sse.js";

export type RawStreamOptions = {streamKeepAliveMs?: number, streamWriteTimeoutMs?: number};

/**
 * Runs a request streamed as `data:` lines (a string as it is, `[DONE]`; anything else as JSON): a refusal before the
 * first byte (a suffix to a model without FIM tokens, a full queue, a prompt too long) keeps its own status, thrown to
 * the error handler; a failure after it is the stream's last `data:` line, in the protocol's error shape.
 */
export async function streamData<T>(options: RawStreamOptions, res: Response, run: (send: (data: unknown) => void) => Promise<T>,
    errorBody: (error: ApiError) => unknown = (error) => error.toBody()): Promise<T | undefined> {
    const sse = new SseStream(res, {keepAliveMs: options.streamKeepAliveMs, writeTimeoutMs: options.streamWriteTimeoutMs});
    try {
        return await run((data) => sse.sendData(typeof data === "string" ? data : JSON.stringify(data), true));
    } catch (error) {
        if (!sse.started) {
            sse.stopKeepAlive();
            throw error;
        }
        if (!res.writableEnded)
            sse.sendData(JSON.stringify(errorBody(toApiError(error))), false);
        return undefined;
    } finally {
        if (sse.started)
            sse.end();
    }
}
