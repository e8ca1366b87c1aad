import type {IncomingMessage} from "node:http";
import type {Duplex} from "node:stream";
import {invalidApiKey, originNotAllowed, unknownRoute, type ApiError} from "../../protocol/errors.js";
import {authenticate} from "../middleware/auth.js";
import {hostProblem} from "../middleware/hostCheck.js";
import {isOriginAllowed} from "../middleware/originCheck.js";
import {rawErrorResponse} from "../rawErrorResponse.js";

export type UpgradeGateOptions = {
    apiKeys: () => readonly string[],
    allowedOrigins?: readonly string[],
    allowedHosts?: readonly string[]
};

/** Paths that serve Responses WebSocket mode, as the HTTP routes are mounted with and without `/v1`. */
const socketPaths = new Set(["/v1/responses", "/responses"]);

/**
 * The checks an HTTP request passes, applied to a WebSocket upgrade in the same order (Host, Origin,
 * key) with the same predicates: returns the owner, or the error to refuse the handshake with.
 */
export function checkUpgrade(req: IncomingMessage, options: UpgradeGateOptions): {owner: string} | ApiError {
    const path = new URL(req.url ?? "/", "http://localhost").pathname.replace(/\/+$/, "");
    if (!socketPaths.has(path))
        return unknownRoute(`No WebSocket endpoint at ${path}: use /v1/responses.`);
    const badHost = hostProblem(req.headers.host, options.allowedHosts);
    if (badHost != null)
        return badHost;
    if (!isOriginAllowed(req.headers.origin, options.allowedOrigins))
        return originNotAllowed(req.headers.origin!);
    const owner = authenticate(req.headers, options.apiKeys());
    return owner == null ? invalidApiKey() : {owner};
}

/** Refuses a handshake with an ordinary HTTP response carrying OpenAI's error body, then closes the socket. */
export function refuseUpgrade(socket: Duplex, error: ApiError): void {
    socket.end(rawErrorResponse(error));
}
