import {defaultQueueLimit} from "./engineDefaults.js";
import {EngineError} from "./errors.js";

export type SequencePoolOptions = {
    /**
     * Requests that may wait for a free sequence; one more is refused with `queue_full`.
     * Defaults to `defaultQueueLimit` (64).
     */
    queueLimit?: number
};

export type SequenceLease<S> = {
    readonly sequence: S,
    /** Tokens of the prompt the sequence already held when it was handed out. */
    readonly sharedPrefixLength: number,
    release(): void
};

type Slot<S> = {sequence: S, busy: boolean, lastUsed: number};
type Waiter<S> = {prompt: readonly number[], resolve: (lease: SequenceLease<S>) => void, reject: (error: unknown) => void, cleanup: () => void};

/**
 * Hands each request the free context sequence that already holds the longest prefix of its prompt,
 * so a continued conversation evaluates only its new tokens; requests beyond the sequences wait in a
 * bounded FIFO queue. One generation per sequence at a time: node-llama-cpp requires it.
 */
export class SequencePool<S> {
    private readonly slots: Slot<S>[];
    private readonly waiters: Waiter<S>[] = [];
    private readonly queueLimit: number;
    private useCounter = 0;
    private closedWith: Error | null = null;

    public constructor(sequences: readonly S[], private readonly tokensOf: (sequence: S) => readonly number[], options: SequencePoolOptions = {}) {
        this.slots = sequences.map((sequence) => ({sequence, busy: false, lastUsed: 0}));
        this.queueLimit = options.queueLimit ?? defaultQueueLimit;
    }

    public get size(): number {
        return this.slots.length;
    }

    public get busyCount(): number {
        return this.slots.filter((slot) => slot.busy).length;
    }

    public get queueDepth(): number {
        return this.waiters.length;
    }

    public get limit(): number {
        return this.queueLimit;
    }

    /** `onQueued` is called once, at once, when no sequence is free and the request joins the queue to wait for one. */
    public acquire(prompt: readonly number[], signal?: AbortSignal, onQueued?: () => void): Promise<SequenceLease<S>> {
        if (this.closedWith != null)
            return Promise.reject(this.closedWith);
        if (signal?.aborted)
            return Promise.reject(new EngineError("aborted", "The request was aborted before it got a sequence."));

        const slot = this.bestFreeSlot(prompt);
        if (slot != null)
            return Promise.resolve(this.lease(slot, prompt));

        if (this.waiters.length >= this.queueLimit)
            return Promise.reject(new EngineError("queue_full", `All ${this.slots.length} sequences are busy and ${this.queueLimit} requests are already waiting.`));

        return new Promise((resolve, reject) => {
            const onAbort = () => {
                this.removeWaiter(waiter);
                reject(new EngineError("aborted", "The request was aborted while it waited for a sequence."));
            };
            const waiter: Waiter<S> = {prompt, resolve, reject, cleanup: () => signal?.removeEventListener("abort", onAbort)};
            signal?.addEventListener("abort", onAbort, {once: true});
            this.waiters.push(waiter);
            onQueued?.();
        });
    }

    /** Refuses new requests and fails the waiting ones; leases already given out stay valid. */
    public close(error: Error): void {
        this.closedWith = error;
        for (const waiter of this.waiters.splice(0)) {
            waiter.cleanup();
            waiter.reject(error);
        }
    }

    private bestFreeSlot(prompt: readonly number[]): Slot<S> | undefined {
        let best: Slot<S> | undefined;
        let bestShared = -1;
        for (const slot of this.slots) {
            if (slot.busy)
                continue;
            const shared = commonPrefixLength(this.tokensOf(slot.sequence), prompt);
            // Ties go to the least recently used sequence, so hot prefixes elsewhere survive longer.
            if (shared > bestShared || (shared === bestShared && best != null && slot.lastUsed < best.lastUsed)) {
                best = slot;
                bestShared = shared;
            }
        }
        return best;
    }

    private lease(slot: Slot<S>, prompt: readonly number[]): SequenceLease<S> {
        slot.busy = true;
        slot.lastUsed = ++this.useCounter;
        let released = false;
        return {
            sequence: slot.sequence,
            sharedPrefixLength: commonPrefixLength(this.tokensOf(slot.sequence), prompt),
            release: () => {
                if (released)
                    return;
                released = true;
                slot.busy = false;
                this.handOver(slot);
            }
        };
    }

    private handOver(slot: Slot<S>): void {
        const waiter = this.waiters.shift();
        if (waiter == null)
            return;
        waiter.cleanup();
        waiter.resolve(this.lease(slot, waiter.prompt));
    }

    private removeWaiter(waiter: Waiter<S>): void {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0)
            this.waiters.splice(index, 1);
        waiter.cleanup();
    }
}

export function commonPrefixLength(a: readonly number[], b: readonly number[]): number {
    const length = Math.min(a.length, b.length);
    let index = 0;
    while (index < length && a[index] === b[index])
        index++;
    return index;
}
