/**
 * The bounds of Responses WebSocket mode, declared once: each connection holds a session, its `store: false`
 * responses and the messages waiting for their turn, so neither the connections nor what one of them queues may
 * grow with what a client sends. `ResponsesWebSocketServer` and `ResponsesSocketSession` take each as an option.
 */
export const defaultSocketLimits = {
    /** Open connections at once, every key together: one more handshake is refused with 429. */
    maxConnections: 64,
    /**
     * Open connections of one API key: one more handshake of that key is refused with 429, while other keys still
     * connect (one client opening connections in a loop cannot take every slot).
     */
    maxConnectionsPerOwner: 32,
    /** Messages that may wait behind the running turn (one turn runs at a time); more are refused with 429. */
    maxPendingTurns: 8,
    /**
     * Bytes of messages one connection holds, received and not yet answered (the running turn's included): a message
     * that would pass it is refused with 429, unless nothing else is held, so one message up to the payload limit is
     * always taken. Twice the default body limit: a turn may run while the next one of the same size waits.
     */
    maxQueuedBytes: 32 * 1024 * 1024
} as const;
