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
     * A free sequence of the same partition holding a longer prefix of the prompt than this one (another session's,
     * kept where it is because its session key holds it): copy its state before evaluating, see `LoadedModel`.
     */
    readonly donor: {sequence: S, sharedPrefixLength: number} | null,
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
    /**
     * The session the request belongs to (`prompt_cache_key`): a sequence last used by this session is preferred, and a
     * sequence that holds another session is taken only when no other is free (its prefix is copied instead, see
     * `SequenceLease.donor`), so that sessions sharing a prefix (an agent and its sub-agents) do not evict each other.
     */
    affinity?: string,
    /** Called once, at once, when the request joins the queue to wait for a sequence. */
    onQueued?: () => void
};

type Slot<S> = {
    sequence: S, busy: boolean, settling: boolean, lastUsed: number, partition: string | null,
    /** The session (`AcquireOptions.affinity`) that used it last; null when that request named none. */
    affinity: string | null
};
type Waiter<S> = {
    prompt: readonly number[],
    partition: string,
    affinity: string | null,
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
        this.slots = sequences.map((sequence) => ({
            sequence, busy: false, settling: false, lastUsed: 0, partition: null, affinity: null
        }));
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

    public acquire(prompt: readonly number[],
        {partition = "", signal, onQueued, affinity: key}: AcquireOptions = {}): Promise<SequenceLease<S>> {
        const affinity = key ?? null;
        if (this.closedWith != null)
            return Promise.reject(this.closedWith);
        if (signal?.aborted)
            return Promise.reject(new EngineError("aborted", "The request was aborted before it got a sequence."));

        const free = this.bestSlot(prompt, partition, (slot) => !slot.busy, affinity);
        const settling = this.bestSlot(prompt, partition, (slot) => slot.busy && slot.settling);
        const bestFree = this.bestSlot(prompt, partition, (slot) => !slot.busy);
        const waitForSettling = settling != null && settling.shared > 0 && settling.shared > (bestFree?.shared ?? 0);
        if (free != null && !waitForSettling)
            return Promise.resolve(this.lease(free.slot, prompt, partition, affinity));

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
                prompt, partition, affinity, preferred: waitForSettling ? settling.slot : null, resolve, reject,
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

    /**
     * The eligible slot holding the longest prefix of the prompt. With `affinity` (a request of a session), the
     * session's own slot comes first and a slot holding another session last, whatever their prefixes.
     */
    private bestSlot(prompt: readonly number[], partition: string, eligible: (slot: Slot<S>) => boolean,
        affinity: string | null = null): {slot: Slot<S>, shared: number} | undefined {
        const rank = (slot: Slot<S>) => affinity == null || slot.affinity == null ? 1 : slot.affinity === affinity ? 2 : 0;
        let best: {slot: Slot<S>, shared: number, rank: number} | undefined;
        for (const slot of this.slots) {
            if (!eligible(slot))
                continue;
            const candidate = {slot, shared: this.sharedWith(slot, prompt, partition), rank: rank(slot)};
            // Ties go to the least recently used sequence, so hot prefixes elsewhere survive longer.
            if (best == null || compareCandidates(candidate, best) > 0)
                best = candidate;
        }
        return best;
    }

    private lease(slot: Slot<S>, prompt: readonly number[], partition: string, affinity: string | null): SequenceLease<S> {
        const sharedPrefixLength = this.sharedWith(slot, prompt, partition);
        const foreign = slot.partition != null && slot.partition !== partition;
        const donor = this.bestSlot(prompt, partition, (other) => other !== slot && !other.busy && other.partition === partition);
        slot.busy = true;
        slot.settling = false;
        slot.partition = partition;
        slot.affinity = affinity;
        slot.lastUsed = ++this.useCounter;
        let released = false;
        return {
            sequence: slot.sequence,
            sharedPrefixLength,
            foreign,
            donor: donor != null && donor.shared > sharedPrefixLength
                ? {sequence: donor.slot.sequence, sharedPrefixLength: donor.shared}
                : null,
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
        // A session that waited for another session's sequence (it held the longest prefix) takes a free one instead,
        // the prefix copied from the sequence just freed (`donor`), unless none is free.
        const {prompt, partition, affinity} = waiter!;
        const target = this.bestSlot(prompt, partition, (free) => !free.busy, affinity)?.slot ?? slot;
        waiter!.resolve(this.lease(target, prompt, partition, affinity));
        if (target !== slot)
            this.handOver(slot);
    }

    private removeWaiter(waiter: Waiter<S>): void {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0)
            this.waiters.splice(index, 1);
        waiter.cleanup();
    }
}

type Candidate = {slot: {lastUsed: number}, shared: number, rank: number};

/** Positive when `a` is the better slot: a higher affinity rank, then a longer prefix, then the less recently used. */
function compareCandidates(a: Candidate, b: Candidate): number {
    return a.rank - b.rank || a.shared - b.shared || b.slot.lastUsed - a.slot.lastUsed;
}

export function commonPrefixLength(a: readonly number[], b: readonly number[]): number {
    const length = Math.min(a.length, b.length);
    let index = 0;
    while (index < length && a[index] === b[index])
        index++;
    return index;
}
