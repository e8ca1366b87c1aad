import {rateLimited, type ApiError} from "../../protocol/errors.js";
import {defaultSocketLimits} from "./socketLimits.js";

export type SocketConnectionSlotsOptions = {
    /** Open connections at once. Defaults to `defaultSocketLimits.maxConnections`. */
    maxConnections?: number,
    /** Open connections per API key. Defaults to `defaultSocketLimits.maxConnectionsPerOwner`. */
    maxConnectionsPerOwner?: number
};

/**
 * Admission of WebSocket connections, in total and per key: each holds a slot from its handshake until its socket
 * closes; one more is refused at the handshake with 429 rather than accepted and starved.
 */
export class SocketConnectionSlots {
    private readonly perOwner = new Map<string, number>();
    private total = 0;
    public readonly maxConnections: number;
    public readonly maxConnectionsPerOwner: number;

    public constructor(options: SocketConnectionSlotsOptions = {}) {
        this.maxConnections = options.maxConnections ?? defaultSocketLimits.maxConnections;
        this.maxConnectionsPerOwner = options.maxConnectionsPerOwner ?? defaultSocketLimits.maxConnectionsPerOwner;
    }

    public get open(): number {
        return this.total;
    }

    /** Takes a slot and returns the function that gives it back (idempotent), or the 429 to refuse the handshake with. */
    public acquire(owner: string): (() => void) | ApiError {
        const mine = this.perOwner.get(owner) ?? 0;
        if (this.total >= this.maxConnections)
            return rateLimited(`${this.total} WebSocket connections are already open (limit ${this.maxConnections}): `
                + "close one, or retry later.");
        if (mine >= this.maxConnectionsPerOwner)
            return rateLimited(`This API key already has ${mine} WebSocket connections open (limit ${this.maxConnectionsPerOwner}): `
                + "close one, or retry later.");
        this.total++;
        this.perOwner.set(owner, mine + 1);
        let released = false;
        return () => {
            if (released)
                return;
            released = true;
            this.total--;
            const left = (this.perOwner.get(owner) ?? 1) - 1;
            if (left <= 0)
                this.perOwner.delete(owner);
            else
                this.perOwner.set(owner, left);
        };
    }
}
