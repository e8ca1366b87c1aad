import {defaultQueueLimit} from "../../engineDefaults.js";
import {EngineError} from "../../EngineError.js";

export type SequencePoolOptions = {
    /**
     * Requests that may wait for a free sequence; one more is refused with `queue_full`.
     * Defaults to `defaultQueueLimit` (64).
     */
    queueLimit?: number
};

export type SequenceLease<S> = {
    readonly sequence: S,
    /** Tokens of the prompt the sequence already held when it was handed out (0 for another partition's sequence). */
    readonly sharedPrefixLength: number,
    /**
     * The sequence last held another partition's tokens: clear it before use, or the runtime's own prefix matching would
     * reuse (and time) that partition's prompt.
     */
    readonly foreign: boolean,
    /**
     * The generation is over: the sequence now holds the finished turn, which the next turn of the same conversation
     * continues. Until it is released (after its state is saved, say), a request that shares more of its prefix than
     * any free sequence does waits for it instead of evaluating its prompt cold elsewhere.
     */
    settle(): void,
    release(): void
};

export type AcquireOptions = {
    /**
     * Whose cached prompts this request may reuse: only a sequence last used by the same partition counts its prefix
     * (one API key never reuses, times or counts another's). Defaults to `""`.
     */
    partition?: string,
    signal?: AbortSignal,
    /** Called once, at once, when the request joins the queue to wait for a sequence. */
    onQueued?: () => void
};

type Slot<S> = {sequence: S, busy: boolean, settling: boolean, lastUsed: number, partition: string | null};
type Waiter<S> = {
    prompt: readonly number[],
    partition: string,
    /** Waits for this sequence only (it is settling with the longest prefix); otherwise for any. */
    preferred: Slot<S> | null,
    resolve: (lease: SequenceLease<S>) => void,
    reject: (error: unknown) => void,
    cleanup: () => void
};

/**
 * Hands each request the free context sequence that already holds the longest prefix of its prompt (within its
 * partition), so a continued conversation evaluates only its new tokens; requests beyond the sequences wait in a
 * bounded FIFO queue. One generation per sequence at a time: node-llama-cpp requires it.
 */
export class SequencePool<S> {
    private readonly slots: Slot<S>[];
    private readonly waiters: Waiter<S>[] = [];
    private readonly queueLimit: number;
    private useCounter = 0;
    private closedWith: Error | null = null;

    public constructor(sequences: readonly S[], private readonly tokensOf: (sequence: S) => readonly number[],
        options: SequencePoolOptions = {}) {
        this.slots = sequences.map((sequence) => ({sequence, busy: false, settling: false, lastUsed: 0, partition: null}));
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

    public acquire(prompt: readonly number[], {partition = "", signal, onQueued}: AcquireOptions = {}): Promise<SequenceLease<S>> {
        if (this.closedWith != null)
            return Promise.reject(this.closedWith);
        if (signal?.aborted)
            return Promise.reject(new EngineError("aborted", "The request was aborted before it got a sequence."));

        const free = this.bestSlot(prompt, partition, (slot) => !slot.busy);
        const settling = this.bestSlot(prompt, partition, (slot) => slot.busy && slot.settling);
        const waitForSettling = settling != null && settling.shared > 0 && settling.shared > (free?.shared ?? 0);
        if (free != null && !waitForSettling)
            return Promise.resolve(this.lease(free.slot, prompt, partition));

        if (this.waiters.length >= this.queueLimit)
            return Promise.reject(
                new EngineError("queue_full",
                    `All ${this.slots.length} sequences are busy and ${this.queueLimit} requests are already waiting.`)
            );

        return new Promise((resolve, reject) => {
            const onAbort = () => {
                this.removeWaiter(waiter);
                reject(new EngineError("aborted", "The request was aborted while it waited for a sequence."));
            };
            const waiter: Waiter<S> = {
                prompt, partition, preferred: waitForSettling ? settling.slot : null, resolve, reject,
                cleanup: () => signal?.removeEventListener("abort", onAbort)
            };
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

    /**
     * The tokens a slot holds that a request of `partition` may count as its own: none of another partition's. A slot
     * never leased (`partition` null) holds what it was created with: nobody's prompt.
     */
    private sharedWith(slot: Slot<S>, prompt: readonly number[], partition: string): number {
        return slot.partition == null || slot.partition === partition ? commonPrefixLength(this.tokensOf(slot.sequence), prompt) : 0;
    }

    private bestSlot(prompt: readonly number[], partition: string,
        eligible: (slot: Slot<S>) => boolean): {slot: Slot<S>, shared: number} | undefined {
        let best: {slot: Slot<S>, shared: number} | undefined;
        for (const slot of this.slots) {
            if (!eligible(slot))
                continue;
            const shared = this.sharedWith(slot, prompt, partition);
            // Ties go to the least recently used sequence, so hot prefixes elsewhere survive longer.
            if (best == null || shared > best.shared || (shared === best.shared && slot.lastUsed < best.slot.lastUsed))
                best = {slot, shared};
        }
        return best;
    }

    private lease(slot: Slot<S>, prompt: readonly number[], partition: string): SequenceLease<S> {
        const sharedPrefixLength = this.sharedWith(slot, prompt, partition);
        const foreign = slot.partition != null && slot.partition !== partition;
        slot.busy = true;
        slot.settling = false;
        slot.partition = partition;
        slot.lastUsed = ++this.useCounter;
        let released = false;
        return {
            sequence: slot.sequence,
            sharedPrefixLength,
            foreign,
            settle: () => {
                if (!released)
                    slot.settling = true;
            },
            release: () => {
                if (released)
                    return;
                released = true;
                slot.busy = false;
                slot.settling = false;
                this.handOver(slot);
            }
        };
    }

    /** A freed sequence goes to the first request waiting for it in particular, else to the first waiting for any. */
    private handOver(slot: Slot<S>): void {
        const preferring = this.waiters.findIndex((waiter) => waiter.preferred === slot);
        const chosen = preferring >= 0 ? preferring : this.waiters.findIndex((waiter) => waiter.preferred == null);
        if (chosen < 0)
            return;
        const [waiter] = this.waiters.splice(chosen, 1);
        waiter!.cleanup();
        waiter!.resolve(this.lease(slot, waiter!.prompt, waiter!.partition));
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
