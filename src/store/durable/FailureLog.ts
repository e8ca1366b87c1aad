import {failureKey, storageFailure} from "./storageFailure.js";

/** Distinct causes logged in one outage; a disk that fails in ever new words is not allowed to flood the log. */
const maxCausesLogged = 8;

/**
 * The durable store's log of failed writes: one line per distinct cause (code and words) while writing fails, not one
 * per batch (a full disk under load fails every batch) and not only the first (a full disk that later also gives EIO
 * says so); one line when writing works again, after which a new outage is logged afresh.
 */
export class FailureLog {
    private readonly causes = new Set<string>();
    private silenced = false;

    public constructor(private readonly folder: string, private readonly log: (line: string) => void) {}

    /** A failed attempt; `waiting`: the changes it leaves unwritten (all retried). */
    public failed(error: unknown, waiting: number): void {
        const key = failureKey(error);
        if (this.causes.has(key) || this.silenced)
            return;
        if (this.causes.size >= maxCausesLogged) {
            this.silenced = true;
            this.log(`store: writing to ${this.folder} keeps failing for more causes; the others are not logged until it works again`);
            return;
        }
        this.causes.add(key);
        const {cause, full} = storageFailure(error);
        this.log(`store: writing to ${this.folder} failed (${cause}); ${waiting} changes wait and are retried, and requests that store `
            + `data get ${full ? "507 insufficient_storage" : "503 storage_unavailable"} while it fails`);
    }

    /** An attempt worked after `attempts` failed ones. */
    public recovered(attempts: number): void {
        if (this.causes.size === 0 && !this.silenced)
            return;
        this.log(`store: writing to ${this.folder} works again (after ${attempts} failed attempts); every waiting change is written`);
        this.causes.clear();
        this.silenced = false;
    }
}
