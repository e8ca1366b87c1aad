import http from "node:http";
import type {AddressInfo, Socket} from "node:net";
import type {Duplex} from "node:stream";
import type {Express} from "express";
import {answerClientError} from "./clientErrors.js";

/** Takes over `Upgrade` requests (WebSocket) and ends its own connections on shutdown. */
export interface UpgradeHandler {
    handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
    close(): void;
}

export type HttpServerOptions = {
    /** A request whose headers are not complete by then gets 408 (Node's default: 60 s). */
    headersTimeoutMs?: number,
    /** How often Node checks the headers timeout (its default: 30 s). */
    connectionsCheckingIntervalMs?: number
};

/**
 * Listens for an express app and closes it cleanly: in-flight requests finish, idle sockets close. What Node's parser
 * refuses before the app sees it (malformed request lines, framing, oversized headers, timeouts) is answered in the
 * API's error shape, and a request without Host reaches the app's Host check rather than Node's empty 400.
 */
export class HttpServer {
    private server: http.Server | undefined;
    private readonly sockets = new Set<Socket>();
    /** The response being written on each socket: a parser error after the app answered must not write another. */
    private readonly inFlight = new WeakMap<Duplex, http.ServerResponse>();

    public constructor(private readonly app: Express, private readonly upgrade?: UpgradeHandler,
        private readonly options: HttpServerOptions = {}) {}

    public async listen(host: string, port: number): Promise<{host: string, port: number, url: string}> {
        const server = http.createServer({
            requireHostHeader: false,
            ...(this.options.headersTimeoutMs == null ? {} : {headersTimeout: this.options.headersTimeoutMs}),
            ...(
                this.options.connectionsCheckingIntervalMs == null ? {}
                    : {connectionsCheckingInterval: this.options.connectionsCheckingIntervalMs}
            )
        }, this.app);
        server.keepAliveTimeout = 5000;
        server.on("connection", (socket) => {
            this.sockets.add(socket);
            socket.on("close", () => this.sockets.delete(socket));
        });
        server.on("request", (req, res) => {
            this.inFlight.set(req.socket, res);
            res.on("close", () => {
                if (this.inFlight.get(req.socket) === res)
                    this.inFlight.delete(req.socket);
            });
        });
        server.on("clientError", (error: Error & {code?: string}, socket) => answerClientError(error, socket, this.inFlight.get(socket)));
        if (this.upgrade != null)
            server.on("upgrade", (req, socket, head) => this.upgrade!.handleUpgrade(req, socket, head));
        await new Promise<void>((resolve, reject) => {
            server.once("error", reject);
            server.listen(port, host, () => {
                server.off("error", reject);
                resolve();
            });
        });
        this.server = server;
        const address = server.address() as AddressInfo;
        const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
        return {host: address.address, port: address.port, url: `http://${shownHost}:${address.port}/v1`};
    }

    public get listening(): boolean {
        return this.server?.listening ?? false;
    }

    /** Stops accepting connections and waits for in-flight requests, up to `graceMs`, then cuts the rest. */
    public async close(graceMs = 10_000): Promise<void> {
        const server = this.server;
        if (server == null)
            return;
        this.server = undefined;
        // Upgraded sockets count as open connections: close them, or shutdown waits out the grace period.
        this.upgrade?.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => {
            for (const socket of this.sockets)
                socket.destroy();
        }, graceMs);
        await closed;
        clearTimeout(timer);
    }
}
