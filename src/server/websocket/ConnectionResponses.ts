import type {PreviousResponse} from "../../responses/pipeline/preparedResponse.js";

/**
 * The `store: false` responses of one WebSocket connection, so that connection alone can continue
 * them with `previous_response_id`. Bounded by count, oldest first out; gone with the connection.
 */
export class ConnectionResponses {
    private readonly entries = new Map<string, PreviousResponse>();

    public constructor(private readonly maxEntries = 16) {}

    public get(id: string): PreviousResponse | undefined {
        return this.entries.get(id);
    }

    public put(entry: PreviousResponse): void {
        this.entries.delete(entry.response.id);
        this.entries.set(entry.response.id, entry);
        while (this.entries.size > this.maxEntries)
            this.entries.delete(this.entries.keys().next().value!);
    }

    /** Forgets a response, as a failed continuation of it requires (the client must resend full history). */
    public evict(id: string): void {
        this.entries.delete(id);
    }

    public get size(): number {
        return this.entries.size;
    }
}
