import type {WebSocket} from "ws";

/**
 * Keeps a WebSocket connection honest: a ping every interval (it also keeps proxies and idle timers from
 * closing a connection whose turn is evaluating a long prompt), and the peer must answer each ping before the
 * next one is due, or the connection is terminated. Every WebSocket client answers pings on its own.
 *
 * This also closes a peer that stopped mid-frame: the bytes after a partial frame belong to that frame, so no
 * pong can be read from it until the frame is complete. A frame that does not finish within about two intervals
 * (a stalled or crawling sender) ends the connection, and the turn it would have carried never starts.
 */
export class SocketHeartbeat {
    private answered = true;
    private readonly timer: NodeJS.Timeout;

    public constructor(private readonly socket: WebSocket, intervalMs: number, private readonly onDead?: () => void) {
        socket.on("pong", () => {
            this.answered = true;
        });
        socket.on("close", () => this.stop());
        this.timer = setInterval(() => this.beat(), intervalMs);
        // Heartbeats never keep the process alive on their own.
        this.timer.unref();
    }

    public stop(): void {
        clearInterval(this.timer);
    }

    private beat(): void {
        if (this.answered) {
            this.ping();
            return;
        }
        // Decided after this turn's I/O: a pong that arrived while the event loop was busy is read before the verdict.
        setImmediate(() => {
            if (this.answered) {
                this.ping();
                return;
            }
            this.stop();
            this.onDead?.();
            this.socket.terminate();
        });
    }

    private ping(): void {
        if (this.socket.readyState !== this.socket.OPEN)
            return;
        this.answered = false;
        this.socket.ping();
    }
}
