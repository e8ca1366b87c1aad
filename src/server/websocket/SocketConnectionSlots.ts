import {rateLimited, type ApiError} from "../../protocol/errors.js";
import {OwnerSlots} from "../OwnerSlots.js";
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
    private readonly slots: OwnerSlots;
    public readonly maxConnections: number;
    public readonly maxConnectionsPerOwner: number;

    public constructor(options: SocketConnectionSlotsOptions = {}) {
        this.maxConnections = options.maxConnections ?? defaultSocketLimits.maxConnections;
        this.maxConnectionsPerOwner = options.maxConnectionsPerOwner ?? defaultSocketLimits.maxConnectionsPerOwner;
        this.slots = new OwnerSlots(this.maxConnections, this.maxConnectionsPerOwner);
    }

    public get open(): number {
        return this.slots.held;
    }

    /** Takes a slot and returns the function that gives it back (idempotent), or the 429 to refuse the handshake with. */
    public acquire(owner: string): (() => void) | ApiError {
        const slot = this.slots.acquire(owner);
        if (typeof slot === "function")
            return slot;
        return slot.limit === "total"
            ? rateLimited(`${slot.held} WebSocket connections are already open (limit ${this.maxConnections}): close one, or retry later.`)
            : rateLimited(`This API key already has ${slot.held} WebSocket connections open (limit ${this.maxConnectionsPerOwner}): `
                + "close one, or retry later.");
    }
}
