export type Operation = {type: "put", key: string, value: unknown} | {type: "del", key: string};

/** The first retry of a failed write waits this long, each next one twice as long as the one before, up to `retryMaxMs`. */
const retryBaseMs = 50;
const retryMaxMs = 5000;
/**
 * Failed attempts a waiter sits through before it is told (about 150 ms: a passing EIO is retried unnoticed); once this
 * many failed in a row, the disk keeps refusing, and a new waiter is told at once instead of waiting out the backoff.
 */
export const attemptsPerWait = 3;

type Waiter = {target: number, failures: number, resolve: () => void, reject: (error: Error) => void};

/** What the writer needs around it. */
export type WriterPorts = {
    /** Writes one atomic batch; an empty one only makes sure the database is open (after a failed reopen). */
    write(operations: Operation[]): Promise<void>,
    /** The error a waiter gets when its changes could not be written (a 507 or 503 for the client). */
    refusal(error: unknown): Error,
    /** An attempt failed; `waiting`: the changes that stay pending. */
    failed(error: unknown, waiting: number): void,
    /** An attempt worked after `attempts` failed ones. */
    recovered(attempts: number): void
};

/**
 * Hands the stores' changes to the database, one atomic batch per synchronous step, and never drops one: a batch that
 * fails goes back into the pending changes, under those made since, and is retried with a bounded backoff until it is
 * written (a delete too: while it waits, memory keeps the record deleted, and every attempt carries the delete). Only
 * each key's last change is kept pending: a batch applies in order, so the last change of a key is what it writes.
 * A waiter (`whenWritten`) resolves once its changes are written, and rejects once the attempts carrying them failed
 * `attemptsPerWait` times, or at once while the disk keeps refusing: the request that waits answers with that error
 * instead of as if its data were stored, and its changes are still written if the disk comes back.
 */
export class JournalWriter {
    private pending = new Map<string, Operation>();
    /** Changes made so far, and written so far (every change up to that count is on disk). */
    private made = 0;
    private durable = 0;
    private attempt: Promise<void> | null = null;
    private retry: NodeJS.Timeout | undefined;
    /** Attempts failed in a row, and the last one's error. */
    private failures = 0;
    private lastError: unknown = null;
    private waiters: Waiter[] = [];
    private kickQueued = false;
    /** While the database is rewritten, changes are held. */
    private paused = false;
    private closing = false;

    public constructor(private readonly ports: WriterPorts) {}

    /** Writing keeps failing (the last `attemptsPerWait` attempts did): requests that store data are refused at once. */
    public get unavailable(): boolean {
        return this.failures >= attemptsPerWait;
    }

    public add(operation: Operation): void {
        if (this.closing)
            return;
        this.pending.delete(operation.key);
        this.pending.set(operation.key, operation);
        this.made++;
        if (!this.kickQueued) {
            this.kickQueued = true;
            queueMicrotask(() => {
                this.kickQueued = false;
                this.kick();
            });
        }
    }

    /** Resolves once every change made so far is written; rejects with `refusal` when they could not be. */
    public whenWritten(): Promise<void> {
        const target = this.made;
        if (this.durable >= target)
            return Promise.resolve();
        if (this.unavailable || this.closing)
            return Promise.reject(this.ports.refusal(this.lastError ?? new Error("the store is closed")));
        return new Promise((resolve, reject) => {
            this.waiters.push({target, failures: 0, resolve, reject});
            this.kick();
        });
    }

    /** Writes every change made so far, then holds later ones until `resume`; rejects with the disk's error (holding none) if it fails. */
    public async pause(): Promise<void> {
        this.paused = true;
        try {
            await this.attempt;
            if (this.pending.size > 0) {
                this.cancelRetry();
                await this.start();
            }
            if (this.failures > 0)
                throw this.lastError;
        } catch (error) {
            this.resume();
            throw error;
        }
    }

    public resume(): void {
        this.paused = false;
        this.kick();
    }

    /** The database could not be opened again (after a rewrite): it is retried like a failed write, and waiters are refused meanwhile. */
    public interrupted(error: unknown): void {
        this.failedAttempt([], this.durable, error);
    }

    /** Stops retrying after a last attempt at what is pending (more only while they work); returns the changes that stay unwritten. */
    public async close(): Promise<Operation[]> {
        this.closing = true;
        this.cancelRetry();
        await this.attempt;
        for (let first = true; this.pending.size > 0 && (first || this.failures === 0); first = false)
            await this.start();
        this.cancelRetry();
        for (const waiter of this.waiters)
            if (this.durable >= waiter.target)
                waiter.resolve();
            else
                waiter.reject(this.ports.refusal(this.lastError ?? new Error("the store is closed")));
        this.waiters = [];
        return [...this.pending.values()];
    }

    private kick(): void {
        if (this.paused || this.closing || this.attempt != null || this.retry != null)
            return;
        if (this.pending.size > 0 || this.failures > 0)
            void this.start();
    }

    /** One attempt: every pending change as one batch (none, after a failed reopen: the attempt reopens). Never rejects. */
    private start(): Promise<void> {
        const batch = [...this.pending.values()];
        const upTo = this.made;
        this.pending = new Map();
        const attempt = this.ports.write(batch).then(
            () => this.succeeded(upTo),
            (error: unknown) => this.failedAttempt(batch, upTo, error)
        ).finally(() => {
            this.attempt = null;
            this.kick();
        });
        this.attempt = attempt;
        return attempt;
    }

    private succeeded(upTo: number): void {
        this.durable = Math.max(this.durable, upTo);
        if (this.failures > 0)
            this.ports.recovered(this.failures);
        this.failures = 0;
        this.lastError = null;
        this.waiters = this.waiters.filter((waiter) => {
            if (waiter.target > this.durable)
                return true;
            waiter.resolve();
            return false;
        });
    }

    /** The batch goes back under the changes made since (theirs win, being later), and a retry is due after the backoff. */
    private failedAttempt(batch: Operation[], upTo: number, error: unknown): void {
        const restored = new Map(batch.map((operation) => [operation.key, operation]));
        for (const [key, operation] of this.pending) {
            restored.delete(key);
            restored.set(key, operation);
        }
        this.pending = restored;
        this.failures++;
        this.lastError = error;
        this.ports.failed(error, restored.size);
        this.waiters = this.waiters.filter((waiter) => {
            if (waiter.target > upTo || ++waiter.failures < attemptsPerWait)
                return true;
            waiter.reject(this.ports.refusal(error));
            return false;
        });
        if (this.closing)
            return;
        this.cancelRetry();
        this.retry = setTimeout(() => {
            this.retry = undefined;
            this.kick();
        }, Math.min(retryBaseMs * 2 ** (this.failures - 1), retryMaxMs));
    }

    private cancelRetry(): void {
        clearTimeout(this.retry);
        this.retry = undefined;
    }
}
