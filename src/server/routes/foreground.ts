import type {Response} from "express";
import type {EngineLease} from "../../engine/types.js";
import type {ApiError} from "../../protocol/errors.js";
import type {ResponseObject} from "../../protocol/wire.js";
import type {AdmittedResponse} from "../../responses/pipeline/preparedResponse.js";
import {responseUsage, type ProtocolAdapter} from "../../protocols/ProtocolAdapter.js";
import {GenerationAbort} from "../../responses/abortReasons.js";
import {toApiError} from "../../responses/engineErrors.js";
import {sendApiError} from "../middleware/errorHandler.js";
import type {SseStream} from "../sse.js";

/** An AbortSignal that fires when the client goes away before the response is finished. */
export function disconnectSignal(res: Response): AbortSignal {
    const controller = new AbortController();
    res.on("close", () => {
        if (!res.writableFinished)
            controller.abort(new GenerationAbort("client_disconnected", "client disconnected"));
    });
    return controller.signal;
}

/** What the request log counts for this request: the response's tokens. */
export function recordUsage(res: Response, response: ResponseObject): void {
    const usage = responseUsage(response);
    if (usage != null)
        res.locals.usage = usage;
}

/** The lease, telling `note` what its generation threw (the service still turns it into a `failed` result). */
export function notingFailure(lease: EngineLease, note: (error: unknown) => void): EngineLease {
    return {
        promptTokens: lease.promptTokens,
        cachedPrefixTokens: lease.cachedPrefixTokens,
        generate: (request) => lease.generate(request).catch((error: unknown) => {
            note(error);
            throw error;
        }),
        release: () => lease.release()
    };
}

/** One request's two steps on the service of its protocol: take a sequence, then generate on it. */
export type ForegroundSteps<Result> = {
    admit: (signal: AbortSignal) => Promise<AdmittedResponse>,
    run: (admitted: AdmittedResponse, signal: AbortSignal) => Promise<Result>
};

/**
 * Runs a request answered in one body. A generation that failed answers, as OpenAI's does, with the failure's HTTP
 * status and error shape (502/504 for an upstream, 500 for the local engine), not a 200 carrying a failed object no
 * one can retrieve; it is answered here, not thrown to the error handler, since the generation logged its failure
 * already. Returns the result, or undefined when the failure was answered. A failed validation of the model's output
 * (`invalid_output`) is no engine failure: it stays a failed result with its usage.
 */
export async function answerInOneBody<Result>(res: Response, steps: ForegroundSteps<Result>): Promise<Result | undefined> {
    const signal = disconnectSignal(res);
    const admitted = await steps.admit(signal);
    let engineFailure: unknown = undefined;
    const result = await steps.run({...admitted, lease: notingFailure(admitted.lease, (error) => (engineFailure = error))}, signal);
    if (engineFailure !== undefined) {
        sendApiError(res, toApiError(engineFailure));
        return undefined;
    }
    return result;
}

/** A foreign protocol's request answered in one body: its adapter's answer, sent as JSON and counted in the request log. */
export async function answerWithAdapter<Prepared, Body>(res: Response, adapter: ProtocolAdapter<Prepared, Body, unknown>,
    prepared: Prepared): Promise<void> {
    const answer = await answerInOneBody(res, {
        admit: (signal) => adapter.admit(prepared, signal),
        run: (admitted, signal) => adapter.answer(prepared, admitted, signal)
    });
    if (answer == null)
        return;
    if (answer.usage != null)
        res.locals.usage = answer.usage;
    res.json(answer.body);
}

/**
 * Runs a request answered as a stream, which opens while the request waits for a sequence (so a long wait gets
 * keep-alives): a refusal before the stream's first byte keeps its own HTTP status (thrown to the error handler); a
 * later refusal, and a failure during the run, is the stream's error in the protocol's shape (`sendError`); the latter
 * is thrown too, for the error handler's log. `finish` writes what ends a finished stream.
 */
export async function answerAsStream<Result>(res: Response, stream: SseStream, steps: ForegroundSteps<Result>,
    sendError: (error: ApiError) => void, finish: (result: Result) => void): Promise<void> {
    const signal = disconnectSignal(res);
    let admitted;
    try {
        admitted = await steps.admit(signal);
    } catch (error) {
        if (!stream.started) {
            stream.stopKeepAlive();
            throw error;
        }
        if (!signal.aborted)
            sendError(toApiError(error));
        stream.end();
        return;
    }
    try {
        finish(await steps.run(admitted, signal));
    } catch (error) {
        if (signal.aborted)
            return;
        if (stream.started)
            sendError(toApiError(error));
        throw error;
    } finally {
        stream.end();
    }
}
