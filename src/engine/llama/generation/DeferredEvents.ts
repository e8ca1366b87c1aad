import type {AfterDispatch} from "../runtime/AfterDispatch.js";
import type {GenerationEvent} from "../../types.js";

/**
 * A generation's events on their way to `request.onEvent`, in order: deferred until the next evaluation is
 * dispatched (see AfterDispatch), except the first, which goes out at once (it is the time to first token).
 * A consumer that throws stops the generation; its error is the generation's.
 */
export class DeferredEvents {
    private failure: {error: unknown} | undefined;
    private first = true;

    public constructor(
        private readonly consumer: ((event: GenerationEvent) => void) | undefined,
        private readonly afterDispatch: AfterDispatch,
        private readonly onFailure: () => void
    ) {}

    public emit(event: GenerationEvent): void {
        if (this.consumer == null)
            return;
        if (!this.first) {
            this.afterDispatch.defer(() => this.deliver(event));
            return;
        }
        this.first = false;
        this.deliver(event);
    }

    /**
     * Runs `work`, which makes events, where they are delivered: at once until the first event is out (always, when
     * nobody consumes them), then deferred with them, in order. A throw stops the generation as a failing consumer does.
     */
    public run(work: () => void): void {
        if (this.first) {
            this.attempt(work);
            return;
        }
        this.afterDispatch.defer(() => this.attempt(work));
    }

    /** Delivers what is still queued; throws the consumer's error, if it failed. */
    public finish(): void {
        this.afterDispatch.drain();
        if (this.failure != null)
            throw this.failure.error;
    }

    private deliver(event: GenerationEvent): void {
        this.attempt(() => this.consumer!(event));
    }

    private attempt(work: () => void): void {
        if (this.failure != null)
            return;
        try {
            work();
        } catch (error) {
            this.failure = {error};
            this.onFailure();
        }
    }
}
