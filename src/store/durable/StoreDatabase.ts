import fs from "node:fs";
import path from "node:path";
import type {ClassicLevel} from "classic-level";
import {storageFailed} from "../../protocol/errors.js";
import type {JournalEntries, StoreJournal} from "../../protocol/StoreJournal.js";
import {moveAside} from "./asideFolders.js";
import {FailureLog} from "./FailureLog.js";
import {JournalWriter, type Operation} from "./JournalWriter.js";
import {storageFailure} from "./storageFailure.js";
import {StoreOpenError} from "./StoreOpenError.js";
import {UnusableStoreError} from "./UnusableStoreError.js";

export {StoreOpenError} from "./StoreOpenError.js";

/** The layout of the keys and values this version writes; older databases are migrated forward on open. */
export const schemaVersion = 1;
const schemaKey = "meta/schema";

/** Forward migrations, by the version they start from (none yet: version 1 is the first). */
const migrations: Record<number, (entries: Map<string, unknown>) => Operation[]> = {};

/** Raised when another process (or another store of this one) holds the data folder: the server must not start on it. */
export class DataFolderLockedError extends Error {}

/**
 * Folders this process has open. LevelDB refuses a second open in the same process by itself, but on the way it
 * closes a descriptor of the LOCK file, which drops the process's POSIX lock: other processes could then open the
 * folder too. So a second open here never reaches LevelDB.
 */
const openHere = new Set<string>();

/**
 * The durable stores' database: LevelDB (classic-level, Node-API prebuilds for every platform inside the one
 * package), in `<data folder>/store`. LevelDB's LOCK file keeps a second process out; each batch is written to its
 * log atomically, so a killed process leaves every batch whole or absent. Everything is read once when the server
 * starts (the memory stores are the index); afterwards the stores only write, through journals, and the changes of
 * one synchronous step go out as one batch, never waiting on the caller's path. A write the disk refuses is retried
 * until it is written (`JournalWriter`); meanwhile those waiting for it are refused with a 507 or 503.
 */
export class StoreDatabase {
    private readonly writer: JournalWriter;
    private closed = false;
    /** False from the moment a rewrite closes the database until it is open again (the writer's attempts reopen it). */
    private isOpen = true;
    private purging: Promise<void> | null = null;

    private constructor(
        public readonly folder: string,
        private db: ClassicLevel<string, unknown>,
        private readonly loaded: Map<string, unknown>,
        private readonly log: (line: string) => void
    ) {
        const failures = new FailureLog(folder, log);
        this.writer = new JournalWriter({
            write: (operations) => this.write(operations),
            refusal: (error) => {
                const {cause, full} = storageFailure(error);
                return storageFailed(folder, cause, full);
            },
            failed: (error, waiting) => failures.failed(error, waiting),
            recovered: (attempts) => failures.recovered(attempts)
        });
    }

    /**
     * Opens (or creates) the store of a data folder. Another process on the folder: `DataFolderLockedError`. A store
     * whose content cannot be used (corrupt, foreign, from a newer schema) is moved aside with a logged reason, never
     * deleted (the newest two aside folders are kept), and an empty one takes its place. Any other failure (EACCES,
     * EMFILE, a disk error) is a `StoreOpenError`, and the store stays where it is.
     */
    public static async open(folder: string, log: (line: string) => void = () => undefined, {lockWaitMs = 0} = {}): Promise<StoreDatabase> {
        const location = path.join(folder, "store");
        let key: string;
        try {
            fs.mkdirSync(folder, {recursive: true, mode: 0o700});
            key = fs.realpathSync(folder);
        } catch (error) {
            throw new StoreOpenError(location, error);
        }
        if (openHere.has(key))
            throw lockedError(folder);
        openHere.add(key);
        try {
            try {
                return await StoreDatabase.loadWhenFree(folder, location, log, Date.now() + lockWaitMs);
            } catch (error) {
                if (!(error instanceof UnusableStoreError))
                    throw error;
                const aside = moveAside(location, log);
                log(`store: ${location} cannot be used (${error.message}); moved aside to ${aside}; starting with an empty store`);
                return await StoreDatabase.load(folder, location, log);
            }
        } catch (error) {
            openHere.delete(key);
            throw error instanceof DataFolderLockedError || error instanceof DurableStoreUnavailableError || error instanceof StoreOpenError
                ? error : new StoreOpenError(location, error);
        }
    }

    /** Retries while another process holds the folder, until `deadline` (a reloaded window's old process may still be exiting). */
    private static async loadWhenFree(folder: string, location: string, log: (line: string) => void,
        deadline: number): Promise<StoreDatabase> {
        for (;;)
            try {
                return await StoreDatabase.load(folder, location, log);
            } catch (error) {
                if (!(error instanceof DataFolderLockedError) || Date.now() >= deadline)
                    throw error;
                await new Promise((resolve) => setTimeout(resolve, 200));
            }
    }

    /** Opens and reads the store; what it holds being unusable is an `UnusableStoreError`, anything else a `StoreOpenError`. */
    private static async load(folder: string, location: string, log: (line: string) => void): Promise<StoreDatabase> {
        try {
            return await StoreDatabase.read(folder, location, log);
        } catch (error) {
            if (error instanceof DataFolderLockedError || error instanceof DurableStoreUnavailableError)
                throw error;
            if (error instanceof UnusableStoreError)
                throw error;
            const code = (error as {code?: unknown}).code;
            // Only LevelDB's own verdict on the content: an IO error (permissions, descriptors, a disk error) is not corruption.
            if (code === "LEVEL_CORRUPTION" || code === "LEVEL_DECODE_ERROR")
                throw new UnusableStoreError(describeLevelError(error));
            throw new StoreOpenError(location, error);
        }
    }

    private static async read(folder: string, location: string, log: (line: string) => void): Promise<StoreDatabase> {
        StoreDatabase.finishRewrite(location);
        if (fs.existsSync(location) && !fs.statSync(location).isDirectory())
            throw new UnusableStoreError("it is a file, not a database folder");
        // Stored conversations are private: the folder is the owner's alone, whatever the data folder's mode.
        fs.mkdirSync(location, {recursive: true, mode: 0o700});
        const db = new (await loadLevelDb())<string, unknown>(location, {valueEncoding: "json"});
        try {
            await db.open();
        } catch (error) {
            const cause = (error as {cause?: {code?: string}}).cause;
            if (cause?.code === "LEVEL_LOCKED")
                throw lockedError(folder);
            throw cause ?? error;
        }
        try {
            const entries = new Map<string, unknown>();
            for await (const [key, value] of db.iterator())
                entries.set(key, value);
            const operations = StoreDatabase.upgrade(entries);
            if (operations.length > 0)
                await db.batch(operations);
            entries.delete(schemaKey);
            return new StoreDatabase(folder, db, entries, log);
        } catch (error) {
            await db.close().catch(() => undefined);
            throw error;
        }
    }

    /** Checks the recorded schema version and returns what brings the entries to the current one. */
    private static upgrade(entries: Map<string, unknown>): Operation[] {
        const recorded = entries.get(schemaKey);
        if (recorded == null) {
            if (entries.size > 0)
                throw new UnusableStoreError(`it holds ${entries.size} entries but no schema version: not a Local Responses store`);
            return [{type: "put", key: schemaKey, value: schemaVersion}];
        }
        if (typeof recorded !== "number" || !Number.isInteger(recorded) || recorded < 1)
            throw new UnusableStoreError(`its schema version ${JSON.stringify(recorded)} is not valid`);
        if (recorded > schemaVersion)
            throw new UnusableStoreError(`its schema version ${recorded} is newer than this server's (${schemaVersion})`);
        const operations: Operation[] = [];
        for (let version = recorded; version < schemaVersion; version++) {
            const migration = migrations[version];
            if (migration == null)
                throw new UnusableStoreError(`no migration from schema version ${version}`);
            for (const operation of migration(entries)) {
                operations.push(operation);
                if (operation.type === "put")
                    entries.set(operation.key, operation.value);
                else
                    entries.delete(operation.key);
            }
        }
        if (recorded < schemaVersion)
            operations.push({type: "put", key: schemaKey, value: schemaVersion});
        return operations;
    }

    /**
     * The entries under a prefix as read at open (keys without the prefix), handed over once: the store restores
     * itself from them, and this copy lets go of them (what the store drops is not kept alive here).
     */
    public entries(prefix: string): JournalEntries {
        const result = new Map<string, unknown>();
        for (const [key, value] of this.loaded)
            if (key.startsWith(prefix)) {
                result.set(key.slice(prefix.length), value);
                this.loaded.delete(key);
            }
        return result;
    }

    /** A journal writing under a prefix; its changes join the batch of the current step. */
    public journal(prefix: string): StoreJournal {
        return {
            put: (key, value) => this.enqueue({type: "put", key: prefix + key, value}),
            del: (key) => this.enqueue({type: "del", key: prefix + key}),
            written: () => this.flush()
        };
    }

    /** Writing keeps failing: requests that store data are refused (507 or 503) until an attempt works again. */
    public get unavailable(): boolean {
        return this.writer.unavailable;
    }

    /** Resolves once every change made so far is written; rejects (507 or 503) when the disk refused it, retries included. */
    public flush(): Promise<void> {
        return this.writer.whenWritten();
    }

    /**
     * Rewrites the database with its live entries only. LevelDB deletes by writing tombstones, and the deleted values
     * stay in its files until a compaction happens to rewrite them (compactRange may just move a file down a level):
     * after a clear, nothing cleared may stay readable on disk. The copy is made beside (`store.purge`), then swapped
     * in; a process killed on the way leaves either database whole, and the next open completes or drops the copy.
     * Changes made meanwhile wait and are written to the new database. If it cannot be opened again, that is logged,
     * the writer's retries keep reopening it (with the rewrite completed or dropped as at a start), and requests that
     * store data get 503 until it opens.
     */
    public purgeDeleted(): Promise<void> {
        if (this.closed || this.purging != null)
            return Promise.resolve();
        this.purging = this.rewrite().finally(() => {
            this.purging = null;
        });
        return this.purging;
    }

    private async rewrite(): Promise<void> {
        await this.writer.pause();
        const location = path.join(this.folder, "store");
        try {
            const copyLocation = `${location}.purge`;
            fs.rmSync(copyLocation, {recursive: true, force: true});
            const copy = new (await loadLevelDb())<string, unknown>(copyLocation, {valueEncoding: "json"});
            try {
                await copy.open();
                const batch: Operation[] = [];
                for await (const [key, value] of this.db.iterator()) {
                    batch.push({type: "put", key, value});
                    if (batch.length >= 512)
                        await copy.batch(batch.splice(0));
                }
                await copy.batch(batch);
            } finally {
                await copy.close().catch(() => undefined);
            }
            this.isOpen = false;
            await this.db.close();
            fs.renameSync(location, `${location}.old`);
            await this.reopen();
        } catch (error) {
            if (!this.isOpen) {
                this.log(`store: ${location} could not be opened again after its rewrite (${(error as Error).message}); reopening is `
                    + "retried, and requests that store data get 503 storage_unavailable until it opens");
                this.writer.interrupted(error);
            } else
                fs.rmSync(`${location}.purge`, {recursive: true, force: true});
            throw error;
        } finally {
            this.writer.resume();
        }
    }

    /** Opens the database again after a rewrite closed it, completing or dropping the rewrite as an open at start does. */
    private async reopen(): Promise<void> {
        const location = path.join(this.folder, "store");
        StoreDatabase.finishRewrite(location);
        const db = new (await loadLevelDb())<string, unknown>(location, {valueEncoding: "json"});
        await db.open();
        this.db = db;
        this.isOpen = true;
    }

    /** One attempt of the writer: the database reopened first if a rewrite left it closed. */
    private async write(operations: Operation[]): Promise<void> {
        if (!this.isOpen)
            await this.reopen();
        if (operations.length > 0)
            await this.db.batch(operations);
    }

    /** Completes or drops an interrupted rewrite: the copy is only ever renamed into place once it is whole. */
    private static finishRewrite(location: string): void {
        if (!fs.existsSync(location) && fs.existsSync(`${location}.purge`))
            fs.renameSync(`${location}.purge`, location);
        fs.rmSync(`${location}.purge`, {recursive: true, force: true});
        fs.rmSync(`${location}.old`, {recursive: true, force: true});
    }

    /**
     * Makes a last attempt at what is unwritten, then closes. Changes the disk still refuses are logged, deletions
     * counted apart: the data they deleted comes back at the next start.
     */
    public async close(): Promise<void> {
        await this.purging?.catch(() => undefined);
        this.closed = true;
        const unwritten = await this.writer.close();
        if (unwritten.length > 0) {
            const deletions = unwritten.filter((operation) => operation.type === "del").length;
            this.log(`store: closing ${this.folder} with ${unwritten.length} changes the disk refused (${deletions} deletions among them: `
                + "what they deleted is back after a restart)");
        }
        if (this.isOpen)
            await this.db.close();
        openHere.delete(fs.realpathSync(this.folder));
    }

    private enqueue(operation: Operation): void {
        if (!this.closed)
            this.writer.add(operation);
    }
}

/** LevelDB's words for a corrupt or undecodable store (classic-level puts them in the error or its cause). */
function describeLevelError(error: unknown): string {
    const {message, cause} = error as {message?: string, cause?: {message?: string}};
    return cause?.message != null ? `${message}: ${cause.message}` : message ?? String(error);
}

function lockedError(folder: string): DataFolderLockedError {
    return new DataFolderLockedError(
        `The data folder ${folder} is in use by another Local Responses server. Stop that one, or give this one its own `
            + `--data-dir (or --store memory).`
    );
}

/** Raised where LevelDB has no prebuild (Windows on ARM): the host keeps its stores in memory there. */
export class DurableStoreUnavailableError extends Error {}

/**
 * Loaded on first use, not with the bundle: where classic-level ships no prebuild for the platform, requiring it
 * throws, and that must not stop the extension (or the CLI with `--store memory`) from loading.
 */
async function loadLevelDb(): Promise<typeof ClassicLevel> {
    try {
        return (await import("classic-level")).ClassicLevel;
    } catch (error) {
        throw new DurableStoreUnavailableError(
            `The durable store's database (LevelDB, classic-level) has no build `
                + `for ${process.platform}-${process.arch}: ${(error as Error).message}`
        );
    }
}
