import WebSocket from "ws";

export type SocketMessage = {type: string, [key: string]: any};

const terminalTypes = new Set(["response.completed", "response.incomplete", "response.failed", "error"]);

/** A Responses WebSocket-mode client for tests: sends `response.create` turns and reads their messages in order. */
export class SocketClient {
    private readonly received: SocketMessage[] = [];
    private waiter: (() => void) | undefined;

    private constructor(public readonly ws: WebSocket) {
        ws.on("message", (data) => {
            this.received.push(JSON.parse(data.toString()));
            this.waiter?.();
        });
        ws.on("close", () => this.waiter?.());
    }

    /** Opens a socket; rejects with the handshake's HTTP status and body when the server refuses it. */
    public static open(url: string, headers: Record<string, string> = {}): Promise<SocketClient> {
        return new Promise((resolve, reject) => {
            const ws = new WebSocket(url, {headers});
            ws.once("open", () => resolve(new SocketClient(ws)));
            ws.once("unexpected-response", (_req, res) => {
                let body = "";
                res.on("data", (chunk) => body += chunk);
                res.on("end", () => reject(
                    Object.assign(new Error(`handshake refused: ${res.statusCode}`),
                        {status: res.statusCode, body: JSON.parse(body || "{}")})
                ));
            });
            ws.once("error", reject);
        });
    }

    public send(message: unknown): void {
        this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
    }

    /** Sends one `response.create` and returns every message of that turn, the terminal one last. */
    public async turn(body: Record<string, unknown>): Promise<SocketMessage[]> {
        this.send({type: "response.create", ...body});
        return this.readTurn();
    }

    /** Reads messages up to and including the next terminal event. */
    public async readTurn(timeoutMs = 60_000): Promise<SocketMessage[]> {
        const deadline = Date.now() + timeoutMs;
        const messages: SocketMessage[] = [];
        for (;;) {
            const next = this.received.shift();
            if (next != null) {
                messages.push(next);
                if (terminalTypes.has(next.type))
                    return messages;
                continue;
            }
            if (this.ws.readyState !== WebSocket.OPEN)
                throw new Error(`socket closed mid-turn after ${messages.map((message) => message.type).join(", ")}`);
            if (Date.now() > deadline)
                throw new Error("no terminal event before the deadline");
            await new Promise<void>((resolve) => {
                const timer = setTimeout(resolve, deadline - Date.now());
                this.waiter = () => {
                    clearTimeout(timer);
                    this.waiter = undefined;
                    resolve();
                };
            });
        }
    }

    public close(): Promise<void> {
        if (this.ws.readyState === WebSocket.CLOSED)
            return Promise.resolve();
        return new Promise((resolve) => {
            this.ws.once("close", () => resolve());
            this.ws.close();
        });
    }
}
