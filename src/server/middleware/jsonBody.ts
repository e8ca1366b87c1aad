import express, {type ErrorRequestHandler, type RequestHandler} from "express";
import {invalidBodyEncoding, invalidJson, requestTooLarge, unsupportedMediaType} from "../../protocol/errors.js";
import {checkJsonNesting} from "../../responses/jsonNesting.js";
import {countJsonContainers, maxJsonContainers} from "./jsonValueCount.js";

/** Body-parser's `verify`: a body of too many objects and arrays is refused (413) before it is parsed. */
function refuseManyValues(_req: unknown, _res: unknown, body: Buffer): void {
    if (countJsonContainers(body) > maxJsonContainers)
        throw requestTooLarge(`The request body holds more than ${maxJsonContainers} JSON objects and arrays.`);
}

/** Largest accepted JSON body; Codex sends ~40 KB, long agent histories a few MB. */
export const defaultBodyLimitBytes = 16 * 1024 * 1024;

export function jsonBody(limitBytes = defaultBodyLimitBytes): RequestHandler[] {
    return [
        express.json({limit: limitBytes, type: ["application/json", "application/*+json"], verify: refuseManyValues}) as RequestHandler,
        // Nothing downstream recurses on a body deeper than this: checked once, here.
        (req, _res, next) => {
            checkJsonNesting(req.body);
            next();
        }
    ];
}

/** Body-parser failures as OpenAI-shaped errors, before any route runs. */
export const bodyErrors: ErrorRequestHandler = (error, req, _res, next) => {
    const type = (error as {type?: string}).type;
    const encoding = req.headers["content-encoding"]?.trim().toLowerCase();
    if (type == null && encoding != null && encoding !== "identity" && isDecompressionError(error))
        next(invalidBodyEncoding(encoding));
    else if (type === "entity.parse.failed")
        next(invalidJson("request body", (error as Error).message));
    else if (type === "entity.too.large")
        next(requestTooLarge(`The request body exceeds the limit of ${(error as {limit?: number}).limit ?? defaultBodyLimitBytes} bytes.`));
    else if (type === "encoding.unsupported" || type === "charset.unsupported")
        next(unsupportedMediaType((error as Error).message));
    else
        next(error);
};

/** zlib's errors (gzip, deflate, brotli) reach body-parser's callback untyped: a `Z_*` or brotli `ERR_*` code. */
function isDecompressionError(error: unknown): boolean {
    const code = (error as {code?: unknown}).code;
    return typeof code === "string"
        && (code.startsWith("Z_") || code.startsWith("ERR__ERROR_") || code === "ERR_BROTLI_DECOMPRESSION_FAILED");
}
