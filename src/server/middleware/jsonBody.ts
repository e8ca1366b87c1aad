import {StringDecoder} from "node:string_decoder";
import type {Readable} from "node:stream";
import zlib from "node:zlib";
import type {ErrorRequestHandler, Request, RequestHandler} from "express";
import typeis from "type-is";
import {invalidBodyEncoding, invalidJson, nestingTooDeep, requestTooLarge, unsupportedMediaType} from "../../protocol/errors.js";
import {checkJsonNesting, maxJsonNesting, paramOfPath, paramSegments} from "../../responses/jsonNesting.js";
import {leadingPathPastDepth} from "./jsonPathAtDepth.js";
import {JsonContainerCounter, maxJsonContainers} from "./jsonValueCount.js";

/** Largest accepted JSON body; Codex sends ~40 KB, long agent histories a few MB. */
export const defaultBodyLimitBytes = 16 * 1024 * 1024;

const jsonTypes = ["application/json", "application/*+json"];

/** The decoders of the Content-Encodings a client may send. */
const decompressors: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
    "gzip": () => zlib.createGunzip(),
    "x-gzip": () => zlib.createGunzip(),
    "deflate": () => zlib.createInflate(),
    "br": () => zlib.createBrotliDecompress()
};

/** A body failure carried to `bodyErrors`, which answers it in the protocol's shape. */
class BodyError extends Error {
    constructor(readonly kind: "too-large" | "too-many-values" | "too-deep" | "encoding" | "media-type" | "parse", message: string,
        readonly encoding?: string, readonly param?: string | null) {
        super(message);
    }
}

/**
 * Reads a JSON body as it arrives, chunk by chunk: each chunk is decompressed, counted (objects and arrays, refused
 * past `maxJsonContainers` or deeper than `maxJsonNesting` before anything is parsed: a body refused for either is
 * never parsed whole) and decoded on its own network event, so only `JSON.parse` runs
 * on the whole body at once. Body-parser cannot do this: its `verify` hook sees the body only whole, and asking for
 * it makes body-parser concatenate and decode all of it in the same tick as the parse (a 15 MB prompt held the event
 * loop ~150 ms longer).
 */
function readJsonBody(limitBytes: number): RequestHandler {
    return (req, _res, next) => {
        if (!typeis.hasBody(req) || !req.is(jsonTypes))
            return next();
        const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers["content-type"] ?? "")?.[1]?.toLowerCase();
        if (charset != null && charset !== "utf-8" && charset !== "utf8")
            return next(new BodyError("media-type", `unsupported charset "${charset.toUpperCase()}": JSON bodies are UTF-8`));
        const encoding = (req.headers["content-encoding"] ?? "identity").trim().toLowerCase();
        if (encoding !== "identity" && decompressors[encoding] == null)
            return next(new BodyError("media-type", `unsupported content encoding "${encoding}"`));
        const declaredLength = Number(req.headers["content-length"]);
        if (encoding === "identity" && declaredLength > limitBytes)
            return finish(req, next, new BodyError("too-large", `The request body exceeds the limit of ${limitBytes} bytes.`));

        const decompressor = encoding === "identity" ? undefined : decompressors[encoding]();
        const source: Readable = decompressor == null ? req : req.pipe(decompressor);
        const counter = new JsonContainerCounter();
        const decoder = new StringDecoder("utf8");
        // Appended as it comes: V8 keeps the pieces as a rope, flattened once by JSON.parse (a join copies it all again).
        let text = "";
        let received = 0;
        let settled = false;
        const fail = (error: BodyError) => {
            if (settled)
                return;
            settled = true;
            source.removeAllListeners("data");
            if (decompressor != null) {
                req.unpipe(decompressor);
                decompressor.destroy();
            }
            finish(req, next, error);
        };
        source.on("data", (chunk: Buffer) => {
            if (settled)
                return;
            received += chunk.length;
            if (received > limitBytes)
                return fail(new BodyError("too-large", `The request body exceeds the limit of ${limitBytes} bytes.`));
            counter.feed(chunk);
            text += decoder.write(chunk);
            if (counter.tooDeep) {
                const path = leadingPathPastDepth(text, maxJsonNesting, paramSegments);
                return fail(new BodyError("too-deep", "", undefined, path == null || path.length === 0 ? null : paramOfPath(path)));
            }
            if (counter.exceeds(maxJsonContainers))
                return fail(new BodyError("too-many-values",
                    `The request body holds more than ${maxJsonContainers} JSON objects and arrays.`));
        });
        source.once("error", () => fail(new BodyError("encoding", "", encoding)));
        req.once("aborted", () => {settled = true;});
        source.once("end", () => {
            if (settled)
                return;
            settled = true;
            text += decoder.end();
            try {
                req.body = parseStrict(text);
            } catch (error) {
                return next(error);
            }
            next();
        });
    };
}

/** Answers once the rest of the body is read off (a client still sending would otherwise see a reset, not the answer). */
function finish(req: Request, next: (error: unknown) => void, error: BodyError): void {
    if (req.complete || req.readableEnded)
        return next(error);
    req.resume();
    req.once("end", () => next(error));
    req.once("close", () => req.readableEnded || next(error));
}

/** JSON.parse of an object or array (body-parser's strict mode); an empty body is an empty object. */
function parseStrict(text: string): unknown {
    const first = /\S/.exec(text);
    if (first == null)
        return {};
    if (first[0] !== "{" && first[0] !== "[")
        throw new BodyError("parse", `Unexpected token '${first[0]}', "${text.slice(first.index, first.index + 10)}"... is not valid JSON`);
    try {
        return JSON.parse(text);
    } catch (error) {
        throw new BodyError("parse", (error as Error).message);
    }
}

export function jsonBody(limitBytes = defaultBodyLimitBytes): RequestHandler[] {
    return [
        readJsonBody(limitBytes),
        // Nothing downstream recurses on a body deeper than this: checked once, here.
        (req, _res, next) => {
            checkJsonNesting(req.body);
            next();
        }
    ];
}

/** Body failures as errors in the protocol's shape, before any route runs. */
export const bodyErrors: ErrorRequestHandler = (error, _req, _res, next) => {
    if (!(error instanceof BodyError))
        return next(error);
    switch (error.kind) {
        case "too-large":
        case "too-many-values":
            return next(requestTooLarge(error.message));
        case "too-deep":
            return next(nestingTooDeep(maxJsonNesting, error.param ?? null));
        case "encoding":
            return next(invalidBodyEncoding(error.encoding ?? "identity"));
        case "media-type":
            return next(unsupportedMediaType(error.message));
        case "parse":
            return next(invalidJson("request body", error.message));
    }
};
