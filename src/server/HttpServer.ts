import http from "node:http";
import type {AddressInfo, Socket} from "node:net";
import type {Duplex} from "node:stream";
import type {Express} from "express";

/** Takes over `Upgrade` requests (WebSocket) and ends its own connections on shutdown. */
export interface UpgradeHandler {
    handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
    close(): void;
}

/** Listens for an express app and closes it cleanly: in-flight requests finish, idle sockets close. */
export class HttpServer {
    private server: http.Server | undefined;
    private readonly sockets = new Set<Socket>();

    public constructor(private readonly app: Express, private readonly upgrade?: UpgradeHandler) {}

    public async listen(host: string, port: number): Promise<{host: string, port: number, url: string}> {
        const server = http.createServer(this.app);
        server.keepAliveTimeout = 5000;
        server.on("connection", (socket) => {
            this.sockets.add(socket);
            socket.on("close", () => this.sockets.delete(socket));
        });
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
