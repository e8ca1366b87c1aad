import fs from "node:fs";
import path from "node:path";
import type {ClassicLevel} from "classic-level";
import type {JournalEntries, StoreJournal} from "../../protocol/StoreJournal.js";

/** The layout of the keys and values this version writes; older databases are migrated forward on open. */
export const schemaVersion = 1;
const schemaKey = "meta/schema";

type Operation = {type: "put", key: string, value: unknown} | {type: "del", key: string};

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
 * one synchronous step go out as one batch, never waiting on the caller's path.
 */
export class StoreDatabase {
    private pending: Operation[] = [];
    private writing: Promise<void> = Promise.resolve();
    private failedOnce = false;
    private closed = false;
    /** While the database is rewritten (`purgeDeleted`), changes wait in `pending`. */
    private paused = false;

    private constructor(
        public readonly folder: string,
        private db: ClassicLevel<string, unknown>,
        private readonly loaded: Map<string, unknown>,
        private readonly log: (line: string) => void
    ) {}

    /**
     * Opens (or creates) the store of a data folder. Another process on the folder: `DataFolderLockedError`.
     * A store that cannot be used (corrupt, unreadable, foreign, from a newer schema) is moved aside with a logged
     * reason, never deleted, and an empty one takes its place.
     */
    public static async open(folder: string, log: (line: string) => void = () => undefined, {lockWaitMs = 0} = {}): Promise<StoreDatabase> {
        fs.mkdirSync(folder, {recursive: true, mode: 0o700});
        const location = path.join(folder, "store");
        const key = fs.realpathSync(folder);
        if (openHere.has(key))
            throw lockedError(folder);
        openHere.add(key);
        try {
            try {
                return await StoreDatabase.loadWhenFree(folder, location, log, Date.now() + lockWaitMs);
            } catch (error) {
                if (error instanceof DataFolderLockedError)
                    throw error;
                const aside = `${location}.unusable-${new Date().toISOString().replace(/[:.]/g, "-")}`;
                fs.renameSync(location, aside);
                log(`store: ${location} cannot be used (${(error as Error).message}); moved aside to ${aside}; starting with an empty store`);
                return await StoreDatabase.load(folder, location, log);
            }
        } catch (error) {
            openHere.delete(key);
            throw error;
        }
    }

    /** Retries while another process holds the folder, until `deadline` (a reloaded window's old process may still be exiting). */
    private static async loadWhenFree(folder: string, location: string, log: (line: string) => void, deadline: number): Promise<StoreDatabase> {
        for (;;)
            try {
                return await StoreDatabase.load(folder, location, log);
            } catch (error) {
                if (!(error instanceof DataFolderLockedError) || Date.now() >= deadline)
                    throw error;
                await new Promise((resolve) => setTimeout(resolve, 200));
            }
    }

    private static async load(folder: string, location: string, log: (line: string) => void): Promise<StoreDatabase> {
        StoreDatabase.finishRewrite(location);
        if (fs.existsSync(location) && !fs.statSync(location).isDirectory())
            throw new Error("it is a file, not a database folder");
        // Stored conversations are private: the folder is the owner's alone, whatever the data folder's mode.
        fs.mkdirSync(location, {recursive: true, mode: 0o700});
        const db = new (await loadLevelDb())<string, unknown>(location, {valueEncoding: "json"});
        try {
            await db.open();
        } catch (error) {
            const cause = (error as {cause?: {code?: string, message?: string}}).cause;
            if (cause?.code === "LEVEL_LOCKED")
                throw lockedError(folder);
            throw new Error(cause?.message ?? (error as Error).message);
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
                throw new Error(`it holds ${entries.size} entries but no schema version: not a Local Responses store`);
            return [{type: "put", key: schemaKey, value: schemaVersion}];
        }
        if (typeof recorded !== "number" || !Number.isInteger(recorded) || recorded < 1)
            throw new Error(`its schema version ${JSON.stringify(recorded)} is not valid`);
        if (recorded > schemaVersion)
            throw new Error(`its schema version ${recorded} is newer than this server's (${schemaVersion})`);
        const operations: Operation[] = [];
        for (let version = recorded; version < schemaVersion; version++) {
            const migration = migrations[version];
            if (migration == null)
                throw new Error(`no migration from schema version ${version}`);
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

    /** Resolves once every change made so far is written. */
    public async flush(): Promise<void> {
        this.writeBatch();
        await this.writing;
        // Changes held back by a rewrite are written when it ends.
        while (this.paused || this.pending.length > 0) {
            await new Promise((resolve) => setTimeout(resolve, 5));
            this.writeBatch();
            await this.writing;
        }
    }

    /**
     * Rewrites the database with its live entries only. LevelDB deletes by writing tombstones, and the deleted values
     * stay in its files until a compaction happens to rewrite them (compactRange may just move a file down a level):
     * after a clear, nothing cleared may stay readable on disk. The copy is made beside (`store.purge`), then swapped
     * in; a process killed on the way leaves either database whole, and the next open completes or drops the copy.
     * Changes made meanwhile wait and are written to the new database.
     */
    public async purgeDeleted(): Promise<void> {
        if (this.closed || this.paused)
            return;
        this.writeBatch();
        this.paused = true;
        try {
            await this.writing;
            const location = path.join(this.folder, "store");
            const copyLocation = `${location}.purge`;
            fs.rmSync(copyLocation, {recursive: true, force: true});
            const Level = await loadLevelDb();
            const copy = new Level<string, unknown>(copyLocation, {valueEncoding: "json"});
            await copy.open();
            let batch: Operation[] = [];
            for await (const [key, value] of this.db.iterator()) {
                batch.push({type: "put", key, value});
                if (batch.length >= 512)
                    await copy.batch(batch.splice(0));
            }
            await copy.batch(batch);
            await copy.close();
            await this.db.close();
            fs.renameSync(location, `${location}.old`);
            StoreDatabase.finishRewrite(location);
            this.db = new Level<string, unknown>(location, {valueEncoding: "json"});
            await this.db.open();
        } finally {
            this.paused = false;
            this.writeBatch();
        }
    }

    /** Completes or drops an interrupted rewrite: the copy is only ever renamed into place once it is whole. */
    private static finishRewrite(location: string): void {
        if (!fs.existsSync(location) && fs.existsSync(`${location}.purge`))
            fs.renameSync(`${location}.purge`, location);
        fs.rmSync(`${location}.purge`, {recursive: true, force: true});
        fs.rmSync(`${location}.old`, {recursive: true, force: true});
    }

    public async close(): Promise<void> {
        await this.flush();
        this.closed = true;
        await this.db.close();
        openHere.delete(fs.realpathSync(this.folder));
    }

    private enqueue(operation: Operation): void {
        if (this.closed)
            return;
        if (this.pending.length === 0)
            queueMicrotask(() => this.writeBatch());
        this.pending.push(operation);
    }

    /** Hands the step's changes to LevelDB as one atomic batch; a failure is logged once and the memory store goes on. */
    private writeBatch(): void {
        if (this.pending.length === 0 || this.closed || this.paused)
            return;
        const batch = this.pending;
        this.pending = [];
        const written = this.db.batch(batch).catch((error: unknown) => {
            if (!this.failedOnce)
                this.log(`store: writing to ${this.folder} failed (${(error as Error).message}); stored data lives in memory until it works again`);
            this.failedOnce = true;
        });
        this.writing = Promise.all([this.writing, written]).then(() => undefined);
    }
}

function lockedError(folder: string): DataFolderLockedError {
    return new DataFolderLockedError(`The data folder ${folder} is in use by another Local Responses server. Stop that one, or give this one its own --data-dir (or --store memory).`);
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
        throw new DurableStoreUnavailableError(`The durable store's database (LevelDB, classic-level) has no build for ${process.platform}-${process.arch}: ${(error as Error).message}`);
    }
}
