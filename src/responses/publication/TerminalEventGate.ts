import type {StreamEvent} from "../../protocol/wire.js";
import type {EventSink} from "./PublicationBuffer.js";

/**
 * Holds back a response's `response.completed` / `response.incomplete` event until what it reports is stored:
 * storage writes to disk off the caller's path, and without the gate a client could read "completed" while the
 * write was still queued, then find the response gone after the process was killed (`persistenceKill.test.ts`
 * caught that, now and then, under load). `response.failed` passes at once: a failed response is not stored.
 * A write the disk refused (retries included) leaves the gate shut: what it held never goes out, and the runner's
 * rejection (507 or 503) is what the transport reports, as a stream's `error` event or the HTTP status.
 */
export class TerminalEventGate {
    private held: StreamEvent[] | null = [];

    public constructor(private readonly sink: EventSink) {}

    public readonly publish: EventSink = (event) => {
        if (this.held != null && (event.type === "response.completed" || event.type === "response.incomplete"))
            this.held.push(event);
        else
            this.sink(event);
    };

    /** Publishes what was held, and everything at once from now on. */
    public open(): void {
        const held = this.held ?? [];
        this.held = null;
        for (const event of held)
            this.sink(event);
    }
}
