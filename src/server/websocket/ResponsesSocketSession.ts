import type {RawData, WebSocket} from "ws";
import {GenerationAbort} from "../../responses/abortReasons.js";
import {toApiError} from "../../responses/engineErrors.js";
import {describeForLog, rateLimited, tooManyPendingTurns} from "../../protocol/errors.js";
import type {ResponsesService} from "../../responses/ResponsesService.js";
import {ConnectionResponses} from "./ConnectionResponses.js";
import {SocketHeartbeat} from "./SocketHeartbeat.js";
import {parseCreateMessage, socketErrorEvent} from "./socketMessages.js";
import {defaultSocketLimits} from "./socketLimits.js";

export type SessionOptions = {
    /** Messages that may wait behind the running turn; more are refused (one turn runs at a time). */
    maxPendingTurns?: number,
    /** Bytes of messages held, received and not yet answered; see `defaultSocketLimits.maxQueuedBytes`. */
    maxQueuedBytes?: number,
    /** `store: false` responses this connection remembers for `previous_response_id`. */
    maxLocalResponses?: number,
    /** A ping every interval, each to be answered before the next, else the connection ends (0 or absent: none). */
    pingIntervalMs?: number,
    /** Refuses a message's body before it is prepared (what HTTP's middleware checks for every route: a model pin). */
    checkRequest?: (owner: string, body: Record<string, unknown>) => void,
    log?: (line: string) => void
};

/**
 * One WebSocket connection in Responses WebSocket mode: `response.create` messages run one after another,
 * each answered with the same events as an SSE stream (one JSON per message) or one `error` message.
 * The connection's `store: false` responses stay continuable here until it closes.
 */
export class ResponsesSocketSession {
    private readonly local: ConnectionResponses;
    private readonly closed = new AbortController();
    private queue: Promise<void> = Promise.resolve();
    private pending = 0;
    /** Bytes of the messages taken and not yet answered (the running turn's included). */
    private queuedBytes = 0;

    public constructor(
        private readonly socket: WebSocket,
        private readonly owner: string,
        private readonly service: ResponsesService,
        private readonly options: SessionOptions = {}
    ) {
        this.local = new ConnectionResponses(options.maxLocalResponses);
        socket.on("message", (data, isBinary) => this.enqueue(data, isBinary));
        socket.on("close", () => this.closed.abort(new GenerationAbort("client_disconnected", "WebSocket closed")));
        socket.on("error", (error) => this.options.log?.(`websocket: ${error.message}`));
        if (options.pingIntervalMs != null && options.pingIntervalMs > 0)
            new SocketHeartbeat(socket, options.pingIntervalMs,
                () => this.options.log?.("websocket: the peer answered no ping (gone, or stalled mid-frame); connection terminated"));
    }

    /** Ends the connection (server shutdown): a running turn is aborted with it. */
    public close(code = 1001, reason = "server shutting down"): void {
        this.socket.close(code, reason);
        this.closed.abort(new GenerationAbort("shutdown", reason));
    }

    private enqueue(data: RawData, isBinary: boolean): void {
        if (this.pending > (this.options.maxPendingTurns ?? defaultSocketLimits.maxPendingTurns)) {
            this.send(socketErrorEvent(tooManyPendingTurns()));
            return;
        }
        const bytes = messageBytes(data);
        const maxBytes = this.options.maxQueuedBytes ?? defaultSocketLimits.maxQueuedBytes;
        if (this.queuedBytes > 0 && this.queuedBytes + bytes > maxBytes) {
            const message = `The messages this connection holds already take ${this.queuedBytes} bytes, and this one ${bytes} more `
                + `(limit ${maxBytes}): wait for the running turn to end.`;
            this.send(socketErrorEvent(rateLimited(message)));
            return;
        }
        this.pending++;
        this.queuedBytes += bytes;
        this.queue = this.queue.then(() => this.turn(data, isBinary)).finally(() => {
            this.pending--;
            this.queuedBytes -= bytes;
        });
    }

    private async turn(data: RawData, isBinary: boolean): Promise<void> {
        const signal = this.closed.signal;
        if (signal.aborted)
            return;
        let previousId: string | undefined;
        try {
            const body = parseCreateMessage(data, isBinary);
            this.options.checkRequest?.(this.owner, body);
            previousId = typeof body.previous_response_id === "string" ? body.previous_response_id : undefined;
            const prepared = this.service.prepare(this.owner, body, {resolvePrevious: (id) => this.local.get(id)});
            const admitted = await this.service.admit(prepared, signal);
            const {response, history} = await this.service.run(admitted, {signal, sink: (event) => this.send(event)});
            if (response.status === "failed") {
                this.forget(previousId);
                return;
            }
            // Stored responses are continued from the shared store; only the others need the connection.
            if (!prepared.params.store)
                this.local.put({response, inputItems: history});
        } catch (error) {
            if (signal.aborted)
                return;
            const apiError = toApiError(error);
            if (apiError.status >= 500)
                this.options.log?.(`websocket: ${describeForLog(apiError)}`);
            this.forget(previousId);
            this.send(socketErrorEvent(apiError));
        }
    }

    /** A failed continuation drops its previous response from the connection, as OpenAI's WebSocket mode does. */
    private forget(previousId: string | undefined): void {
        if (previousId != null)
            this.local.evict(previousId);
    }

    private send(event: object): void {
        if (this.socket.readyState === this.socket.OPEN)
            this.socket.send(JSON.stringify(event));
    }
}

/** A message's size as received: ws hands a Buffer, or fragments as an array of them, or an ArrayBuffer. */
function messageBytes(data: RawData): number {
    return Array.isArray(data) ? data.reduce((sum, part) => sum + part.length, 0) : data.byteLength;
}
