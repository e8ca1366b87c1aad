import type {IncomingMessage} from "node:http";
import type {Duplex} from "node:stream";
import {WebSocketServer} from "ws";
import {ApiError, invalidWebSocketHandshake, methodNotAllowed, serverShuttingDown} from "../../protocol/errors.js";
import type {ResponsesService} from "../../responses/ResponsesService.js";
import type {UpgradeHandler} from "../HttpServer.js";
import {ResponsesSocketSession, type SessionOptions} from "./ResponsesSocketSession.js";
import {SocketConnectionSlots, type SocketConnectionSlotsOptions} from "./SocketConnectionSlots.js";
import {checkUpgrade, refuseUpgrade, type UpgradeGateOptions} from "./upgradeGate.js";

export type WebSocketServerOptions = UpgradeGateOptions & SessionOptions & SocketConnectionSlotsOptions & {
    responses: ResponsesService,
    /** Largest accepted message, as the HTTP body limit. */
    maxPayloadBytes?: number
};

/**
 * Serves Open Responses WebSocket mode on the HTTP server's `upgrade` event: the handshake passes the
 * HTTP security checks and takes a connection slot (`SocketConnectionSlots`, in total and per key), then each
 * connection becomes a `ResponsesSocketSession`.
 */
export class ResponsesWebSocketServer implements UpgradeHandler {
    private readonly wss: WebSocketServer;
    private readonly sessions = new Set<ResponsesSocketSession>();
    private readonly slots: SocketConnectionSlots;
    private accepting = true;

    public constructor(private readonly options: WebSocketServerOptions) {
        this.slots = new SocketConnectionSlots(options);
        this.wss = new WebSocketServer({noServer: true, maxPayload: options.maxPayloadBytes, perMessageDeflate: false});
        // A handshake ws itself refuses (not GET, a bad Sec-WebSocket-Key or -Version) gets OpenAI's error body too.
        this.wss.on("wsClientError", (error: Error, socket: Duplex) => refuseUpgrade(socket, /Invalid HTTP method/.test(error.message)
            ? methodNotAllowed("A WebSocket handshake must be a GET request.")
            : invalidWebSocketHandshake(error.message)));
    }

    public handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
        if (!this.accepting) {
            refuseUpgrade(socket, serverShuttingDown());
            return;
        }
        const checked = checkUpgrade(req, this.options);
        if (checked instanceof ApiError) {
            refuseUpgrade(socket, checked);
            return;
        }
        if (socket.destroyed)
            return;
        const release = this.slots.acquire(checked.owner);
        if (release instanceof ApiError) {
            refuseUpgrade(socket, release);
            return;
        }
        // The slot is the socket's, not the session's: a handshake ws refuses after this still gives it back.
        socket.once("close", release);
        this.wss.handleUpgrade(req, socket, head, (ws) => {
            const session = new ResponsesSocketSession(ws, checked.owner, this.options.responses, this.options);
            this.sessions.add(session);
            ws.on("close", () => this.sessions.delete(session));
        });
    }

    /** Connections open now (each holds a slot until its socket closes). */
    public get openConnections(): number {
        return this.slots.open;
    }

    /** Stops accepting and closes every connection (going away); running turns are aborted. */
    public close(): void {
        this.accepting = false;
        for (const session of this.sessions)
            session.close();
        this.wss.close();
    }
}
