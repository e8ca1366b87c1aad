import type {StreamEvent, UnnumberedEvent} from "../../protocol/wire.js";

export type EventSink = (event: StreamEvent) => void;

export type PublicationOptions = {
    /**
     * Hold content events until `release()`: used when output must be validated before anything is published
     * (structured output, strict tools). Lifecycle events still go out at once.
     */
    holdContent?: boolean,
    /** The first event's sequence number: after events sent before generation (see GenerationRunner.announce). Defaults to 0. */
    firstSequenceNumber?: number
};

/**
 * Where a response's stream events go, in order: lifecycle events are published at once, content events are held
 * back while output awaits validation, then released or (in part, or all) withdrawn. Sequence numbers follow
 * publication order, so held events are numbered when released and a client always sees a strictly increasing sequence.
 */
export class PublicationBuffer {
    private sequence: number;
    private holding: boolean;
    private readonly held: UnnumberedEvent[] = [];

    public constructor(private readonly sink: EventSink, options: PublicationOptions = {}) {
        this.holding = options.holdContent ?? false;
        this.sequence = options.firstSequenceNumber ?? 0;
    }

    /** The number the next published event gets. */
    public get nextSequenceNumber(): number {
        return this.sequence;
    }

    /** Publishes an event that is never held (the response's lifecycle, compaction progress). */
    public lifecycle(event: UnnumberedEvent): void {
        this.publish(event);
    }

    /** Publishes a content event (deltas, item payloads), or holds it until `release()`. */
    public content(event: UnnumberedEvent): void {
        if (this.holding)
            this.held.push(event);
        else
            this.publish(event);
    }

    /** Publishes what was held back (after validation), and publishes content at once from now on. */
    public release(): void {
        this.holding = false;
        for (const event of this.held.splice(0))
            this.publish(event);
    }

    /** Withdraws the held events of one output item, but those of type `except` (its item stays, announced). */
    public withdrawItem(outputIndex: number, except?: UnnumberedEvent["type"]): void {
        const kept = this.held.filter((event) => !("output_index" in event) || event.output_index !== outputIndex || event.type === except);
        this.held.splice(0, this.held.length, ...kept);
    }

    /** Withdraws everything held, e.g. when validation failed and nothing invalid may be published. */
    public discard(): void {
        this.held.length = 0;
    }

    private publish(event: UnnumberedEvent): void {
        this.sink({...event, sequence_number: this.sequence++} as StreamEvent);
    }
}
