import {isIPv6} from "node:net";
import type {RequestHandler} from "express";
import {invalidHost, missingHost, type ApiError} from "../../protocol/errors.js";

/** `name` or `[ipv6]`, then an optional `:port`, and nothing else (RFC 9110 §7.2 / RFC 3986 §3.2.2). */
const hostPattern = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/@]+)(?::(\d{1,5}))?$/;
const ipv4Loopback = /^127\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
/** `localhost` and its subdomains, which resolve to loopback by definition (RFC 6761 §6.3). */
const localhostName = /^(?:(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)\.)*localhost$/;

/**
 * Whether a Host header names this machine's loopback: `localhost` (and `*.localhost`), `127.x.y.z`, `[::1]` or a
 * configured extra name, with an optional port from 0 to 65535. The header is parsed whole: a bracketed address
 * followed by anything but a port, a look-alike name or a bad port is not loopback, and may be DNS rebinding.
 */
export function isLoopbackHost(host: string | undefined, extraHosts: readonly string[] = []): boolean {
    const match = host == null ? null : hostPattern.exec(host);
    if (match == null)
        return false;
    const [, rawName, port] = match;
    if (port != null && Number(port) > 65_535)
        return false;
    const name = rawName!.toLowerCase();
    if (name.startsWith("["))
        return isIPv6(name.slice(1, -1)) && new URL(`http://${name}`).hostname === "[::1]";
    return name === "localhost" || localhostName.test(name) || ipv4Loopback.test(name)
        || extraHosts.some((extra) => extra.toLowerCase() === name);
}

/** Refuses requests whose Host header is missing (400) or not a loopback name (403), defeating DNS rebinding. */
export function hostCheck(extraHosts: readonly string[] = []): RequestHandler {
    return (req, _res, next) => next(hostProblem(req.headers.host, extraHosts));
}

/** Why a Host header is refused, or undefined when it names loopback. HTTP/1.1 requires the header (RFC 9112 §3.2). */
export function hostProblem(host: string | undefined, extraHosts: readonly string[] = []): ApiError | undefined {
    if (host == null || host === "")
        return missingHost();
    return isLoopbackHost(host, extraHosts) ? undefined : invalidHost();
}
