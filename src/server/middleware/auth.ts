import {createHash, timingSafeEqual} from "node:crypto";
import type {IncomingHttpHeaders} from "node:http";
import type {RequestHandler} from "express";
import {invalidApiKey} from "../../protocol/errors.js";

/** The owner of stored objects when no API key is configured: every caller shares the store, as they share the model. */
export const publicOwner = "public";

declare module "express-serve-static-core" {
    interface Request {
        /** A stable, non-reversible id of the caller's API key: stored objects are isolated by it. */
        owner: string;
    }
}

/**
 * Accepts `Authorization: Bearer KEY` or `x-api-key: KEY`. Keys are compared as SHA-256 digests with
 * `timingSafeEqual`, so neither the comparison time nor the key length leaks; a missing and a wrong
 * key get the same 401. The key itself is never kept on the request.
 */
export function apiKeyAuth(getKeys: () => readonly string[]): RequestHandler {
    return (req, _res, next) => {
        const owner = authenticate(req.headers, getKeys());
        if (owner == null) {
            next(invalidApiKey());
            return;
        }
        req.owner = owner;
        next();
    };
}

/** The owner a request's headers authenticate as, or undefined when keys are configured and none matches. */
export function authenticate(headers: IncomingHttpHeaders, keys: readonly string[]): string | undefined {
    if (keys.length === 0)
        return publicOwner;
    const presented = presentedKey(headers);
    const digest = sha256(presented ?? "");
    let matched: ConfiguredKey | undefined;
    for (const candidate of configuredKeys(keys)) {
        if (timingSafeEqual(candidate.digest, digest) && presented != null)
            matched = candidate;
    }
    return matched?.owner;
}

type ConfiguredKey = {key: string, digest: Buffer, owner: string};

/**
 * The digests and owner ids of a list of keys, computed once per list (rotation replaces the list, and a replaced
 * list's entry goes with it) and again if the list was changed in place.
 */
const digestsOfKeyLists = new WeakMap<readonly string[], readonly ConfiguredKey[]>();

function configuredKeys(keys: readonly string[]): readonly ConfiguredKey[] {
    const known = digestsOfKeyLists.get(keys);
    if (known != null && known.length === keys.length && known.every((entry, index) => entry.key === keys[index]))
        return known;
    const computed = keys.map((key) => {
        const digest = sha256(key);
        return {key, digest, owner: ownerId(digest)};
    });
    digestsOfKeyLists.set(keys, computed);
    return computed;
}

function presentedKey(headers: IncomingHttpHeaders): string | undefined {
    const authorization = headers.authorization;
    if (authorization != null) {
        const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
        if (match != null)
            return match[1]!.trim();
    }
    const header = headers["x-api-key"];
    return typeof header === "string" && header !== "" ? header.trim() : undefined;
}

function sha256(text: string): Buffer {
    return createHash("sha256").update(text).digest();
}

/** Owner ids derive from the key digest: stable across restarts, useless to recover the key. */
export function ownerId(keyDigest: Buffer): string {
    return `key_${createHash("sha256").update("local-responses-owner").update(keyDigest).digest("hex").slice(0, 24)}`;
}

export function ownerOfKey(key: string): string {
    return ownerId(sha256(key));
}
