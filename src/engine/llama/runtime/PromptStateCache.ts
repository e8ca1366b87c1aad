import {createHash, randomBytes} from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import {enforcePromptStateBudget, ensurePrivateFolders, writePrivately} from "./promptStateFolder.js";

/**
 * What a saved state may only ever be loaded into: the model file that wrote it (its fingerprint) and the context
 * settings it was evaluated with. node-llama-cpp warns that a state loaded into another model can crash the process.
 */
export type PromptStateIdentity = {model: string, context: string};

export type PromptStateCacheOptions = {
    folder: string,
    /**
     * The folder the byte budget bounds as a whole: a library's `prompt-states/`, above each model's `folder`, so that N
     * models share one budget rather than take N. Defaults to `folder`.
     */
    budgetFolder?: string,
    identity: PromptStateIdentity,
    /**
     * Disk budget for every state below `budgetFolder` (all models), least recently used out first. Defaults to
     * `defaultPromptCacheMaxBytes`.
     */
    maxBytes?: number,
    /** Shorter prefixes are not worth a file. Defaults to `defaultPromptCacheMinTokens`. */
    minTokens?: number,
    /**
     * A state not used for this long is deleted (it holds a prompt: the cache must not keep prompts forever). Defaults to
     * `defaultPromptCacheTtlSeconds` (24 hours); 0 keeps states until the byte budget pushes them out.
     */
    ttlSeconds?: number,
    /** The clock, for tests. Defaults to `Date.now`. */
    now?: () => number,
    log?: (line: string) => void
};

/** Disk budget of the prompt cache: 2 GiB. */
export const defaultPromptCacheMaxBytes = 2 * 1024 ** 3;
/** Prompts shorter than this (in tokens) are not saved. */
export const defaultPromptCacheMinTokens = 1024;
/** A saved prompt state unused for a day is deleted. */
export const defaultPromptCacheTtlSeconds = 24 * 60 * 60;

/** A saved prefix that a prompt starts with: load `file`, then evaluate the prompt from `tokenCount` on. */
export type PromptStateHit = {key: string, file: string, tokenCount: number};

/**
 * `<key>.json` beside `<key>.state`: written after the state file is complete, so a state without one is never used.
 * `partition` is whose prompt it holds (an API key's owner id): only that partition's requests may load it.
 */
type Manifest = {
    version: 2, key: string, model: string, context: string, partition: string, tokens: number[], stateBytes: number, stateSha256: string,
    usedAt: number
};

/** Version 1 manifests named no partition: they are dropped, since nobody can say whose prompt they hold. */
const manifestVersion = 2;

/** A save in two steps: `written` when the sequence may change again (the state is in its file), `done` when it is usable. */
export type PromptStateSave = {written: Promise<void>, done: Promise<boolean>};

/**
 * Evaluated prompt prefixes kept on disk across restarts (`saveStateToFile` / `loadStateFromFile` do the writing and
 * reading; this class decides what, where, whether a file may be loaded, and what to drop). Keyed by the model's
 * fingerprint, the context settings, the partition (whose prompt it is) and the prefix's tokens; a file is used only
 * when its manifest names this exact model, context and partition, and its size and SHA-256 match what was written
 * (a half-written or truncated file is a miss). States unused for `ttlSeconds` are deleted (here when the cache opens or
 * saves; the host's sweeper on a timer, loaded or not). Files are owner-only. Another process may delete states under
 * this cache (the sweeper, another model's save keeping the shared budget): a state gone is a miss, never an error.
 */
export class PromptStateCache {
    private readonly entries = new Map<string, Manifest>();
    /** Saves are written one at a time (each holds its sequence only while its state is written). */
    private writing: Promise<unknown> = Promise.resolve();
    /** Keys being saved, so the same prefix is not written twice at once. */
    private readonly pending = new Set<string>();
    public readonly maxBytes: number;
    public readonly minTokens: number;
    public readonly ttlSeconds: number;
    private readonly now: () => number;
    private readonly budgetFolder: string;

    private constructor(private readonly options: PromptStateCacheOptions) {
        this.maxBytes = options.maxBytes ?? defaultPromptCacheMaxBytes;
        this.minTokens = options.minTokens ?? defaultPromptCacheMinTokens;
        this.ttlSeconds = options.ttlSeconds ?? defaultPromptCacheTtlSeconds;
        this.now = options.now ?? Date.now;
        this.budgetFolder = options.budgetFolder ?? options.folder;
    }

    /** Reads the folder's manifests; leftovers of interrupted saves (temporary files, states without a manifest) are removed. */
    public static async open(options: PromptStateCacheOptions): Promise<PromptStateCache> {
        const cache = new PromptStateCache(options);
        await ensurePrivateFolders(cache.budgetFolder, options.folder);
        const names = await fsp.readdir(options.folder);
        for (const name of names.filter((name) => name.endsWith(".json"))) {
            const manifest = await readManifest(path.join(options.folder, name));
            const state = path.join(options.folder, name.replace(/\.json$/, ".state"));
            const size = await fsp.stat(state).then((stat) => stat.size, () => -1);
            if (manifest == null || size !== manifest.stateBytes || `${manifest.key}.json` !== name) {
                options.log?.(`prompt cache: dropping unusable ${name}`);
                await removeQuietly(path.join(options.folder, name), state);
                continue;
            }
            cache.entries.set(manifest.key, manifest);
        }
        for (const name of names)
            if (name.includes(".tmp-") || (name.endsWith(".state") && !cache.entries.has(name.slice(0, -".state".length))))
                await removeQuietly(path.join(options.folder, name));
        await cache.dropExpired();
        await cache.enforceBudget();
        return cache;
    }

    /**
     * `forget` without an open cache (the model is not loaded): deletes the states of one partition in `folder`, or every
     * state, from what their manifests say. Resolves to how many went.
     */
    public static async forgetIn(folder: string, partition?: string): Promise<number> {
        const names = await fsp.readdir(folder).catch(() => [] as string[]);
        let count = 0;
        for (const name of names.filter((name) => name.endsWith(".json"))) {
            const manifest = await readManifest(path.join(folder, name));
            if (partition != null && manifest?.partition !== partition)
                continue;
            await removeQuietly(path.join(folder, name), path.join(folder, name.replace(/\.json$/, ".state")));
            count += manifest == null ? 0 : 1;
        }
        return count;
    }

    /**
     * The saved state of `partition` sharing the longest prefix with `tokens` (at least `minTokens`), written by this
     * model and context, or null (a miss is never a load). `tokenCount` is the shared prefix: a state holds a whole
     * earlier prompt and its answer, and what follows the shared part is erased after loading.
     */
    public find(tokens: readonly number[], partition: string): PromptStateHit | null {
        for (;;) {
            let best: {entry: Manifest, shared: number} | null = null;
            for (const entry of this.entries.values()) {
                if (!this.usable(entry, partition))
                    continue;
                const shared = sharedPrefixLength(entry.tokens, tokens);
                if (shared >= this.minTokens && (best == null || shared > best.shared))
                    best = {entry, shared};
            }
            if (best == null)
                return null;
            if (this.stillOnDisk(best.entry))
                return {key: best.entry.key, file: this.stateFile(best.entry.key), tokenCount: best.shared};
        }
    }

    /** Whether a saved state of `partition` already covers most of `tokens` (saving them again would add little). */
    public covers(tokens: readonly number[], partition: string): boolean {
        const hit = this.find(tokens, partition);
        return hit != null && hit.tokenCount >= tokens.length / 2;
    }

    /**
     * Loads a hit of `partition` through `load` (the sequence's `loadStateFromFile`) after checking the file is whole;
     * false (and the entry dropped) when it is not, so the caller evaluates the prompt cold.
     */
    public async restore(hit: PromptStateHit, partition: string, load: (file: string) => Promise<void>): Promise<boolean> {
        const entry = this.entries.get(hit.key);
        if (entry == null || !this.usable(entry, partition))
            return false;
        if (!this.stillOnDisk(entry) || !fs.existsSync(hit.file)) {
            this.entries.delete(entry.key);
            return false;
        }
        const digest = await sha256File(hit.file).catch(() => null);
        if (digest !== entry.stateSha256) {
            this.options.log?.(`prompt cache: ${path.basename(hit.file)} does not match its manifest (truncated or altered); dropped`);
            await this.drop(entry.key);
            return false;
        }
        await load(hit.file);
        entry.usedAt = this.now();
        await writeAtomically(this.manifestFile(entry.key), JSON.stringify(entry));
        return true;
    }

    /**
     * Saves the state of `partition`'s evaluated prefix through `write` (the sequence's `saveStateToFile`), one write at
     * a time. `written` resolves as soon as the state is in its file (the sequence may then change: the next turn need
     * not wait for the checksum and manifest); `done` when the state is usable, false when it was skipped (shorter than
     * `minTokens`, already saved, or larger than the whole budget). Neither rejects for a failed write: it is logged.
     */
    public save(tokens: readonly number[], partition: string, write: (file: string) => Promise<unknown>): PromptStateSave {
        const {model, context} = this.options.identity;
        const key = createHash("sha256").update(`${model}\0${context}\0${partition}\0${tokens.join(",")}`).digest("hex").slice(0, 40);
        const saved = this.entries.get(key);
        if (tokens.length < this.minTokens || (saved != null && this.stillOnDisk(saved) && !this.expired(saved)) || this.pending.has(key))
            return {written: Promise.resolve(), done: Promise.resolve(false)};
        this.pending.add(key);
        const temporary = `${this.stateFile(key)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
        const written = this.writing.then(() => writePrivately(this.budgetFolder, this.options.folder, temporary, write))
            .then(() => undefined);
        this.writing = written.catch(() => undefined);
        const done = written
            .then(
                () => this.commit({version: manifestVersion, key, model, context, partition, tokens: [...tokens], stateBytes: 0,
                    stateSha256: "", usedAt: 0}, temporary)
            )
            .catch(async (error: unknown) => {
                await removeQuietly(temporary);
                this.options.log?.(`prompt cache: could not save a state: ${error instanceof Error ? error.message : String(error)}`);
                return false;
            })
            .finally(() => this.pending.delete(key));
        return {written: written.catch(() => undefined), done};
    }

    /** Deletes the states of one partition (its owner deleted what it stored), or every state. Returns how many went. */
    public async forget(partition?: string): Promise<number> {
        const gone = [...this.entries.values()].filter((entry) => partition == null || entry.partition === partition);
        for (const entry of gone)
            await this.drop(entry.key);
        return gone.length;
    }

    public stats(): {entries: number, bytes: number} {
        return {entries: this.entries.size, bytes: this.bytesUsed()};
    }

    /** A written state file becomes an entry: checked in (size, checksum), its manifest written, the budget kept. */
    private async commit(manifest: Manifest, temporary: string): Promise<boolean> {
        const stateBytes = (await fsp.stat(temporary)).size;
        if (stateBytes > this.maxBytes) {
            await removeQuietly(temporary);
            return false;
        }
        const entry: Manifest = {...manifest, stateBytes, stateSha256: await sha256File(temporary), usedAt: this.now()};
        await fsp.rename(temporary, this.stateFile(entry.key));
        await writeAtomically(this.manifestFile(entry.key), JSON.stringify(entry));
        this.entries.set(entry.key, entry);
        await this.dropExpired();
        await this.enforceBudget();
        return this.entries.has(entry.key);
    }

    /**
     * Whether the entry's manifest is still there: the sweeper (past the TTL) or another model's save (the shared
     * budget) may have deleted it since; then it leaves the index, a miss. One check per lookup's best candidate.
     */
    private stillOnDisk(entry: Manifest): boolean {
        if (fs.existsSync(this.manifestFile(entry.key)))
            return true;
        this.entries.delete(entry.key);
        return false;
    }

    private usable(entry: Manifest, partition: string): boolean {
        return entry.model === this.options.identity.model && entry.context === this.options.identity.context
            && entry.partition === partition
            && !this.expired(entry);
    }

    private expired(entry: Manifest): boolean {
        return this.ttlSeconds > 0 && this.now() - entry.usedAt > this.ttlSeconds * 1000;
    }

    private async dropExpired(): Promise<void> {
        for (const entry of [...this.entries.values()])
            if (this.expired(entry))
                await this.drop(entry.key);
    }

    /**
     * One budget for the whole `budgetFolder` (every model's states), least recently used out first, whoever's they
     * are; then the entries whose files went (this cache's own among them) leave the index.
     */
    private async enforceBudget(): Promise<void> {
        await enforcePromptStateBudget(this.budgetFolder, this.maxBytes);
        for (const entry of [...this.entries.values()])
            this.stillOnDisk(entry);
    }

    private bytesUsed(): number {
        let bytes = 0;
        for (const entry of this.entries.values())
            bytes += entry.stateBytes;
        return bytes;
    }

    /** The manifest goes first: from then on the state file is an orphan that no lookup uses. */
    private async drop(key: string): Promise<void> {
        this.entries.delete(key);
        await removeQuietly(this.manifestFile(key), this.stateFile(key));
    }

    private stateFile(key: string): string {
        return path.join(this.options.folder, `${key}.state`);
    }

    private manifestFile(key: string): string {
        return path.join(this.options.folder, `${key}.json`);
    }
}

/**
 * Identifies a model file without reading all of it: its size and the SHA-256 of its first and last MiB (the GGUF
 * header with its metadata and tokenizer, and the tail of the weights).
 */
export async function modelFingerprint(file: string): Promise<string> {
    const handle = await fsp.open(file, "r");
    try {
        const {size} = await handle.stat();
        const span = Math.min(size, 1024 * 1024);
        const head = Buffer.alloc(span);
        const tail = Buffer.alloc(span);
        await handle.read(head, 0, span, 0);
        await handle.read(tail, 0, span, size - span);
        return `${size}:${createHash("sha256").update(head).update(tail).digest("hex")}`;
    } finally {
        await handle.close();
    }
}

function sharedPrefixLength(a: readonly number[], b: readonly number[]): number {
    const length = Math.min(a.length, b.length);
    let index = 0;
    while (index < length && a[index] === b[index])
        index++;
    return index;
}

async function readManifest(file: string): Promise<Manifest | null> {
    try {
        const manifest = JSON.parse(await fsp.readFile(file, "utf8")) as Manifest;
        return manifest.version === manifestVersion && typeof manifest.key === "string" && typeof manifest.partition === "string"
            && Array.isArray(manifest.tokens)
            && typeof manifest.stateBytes === "number" && typeof manifest.stateSha256 === "string" ? manifest : null;
    } catch {
        return null;
    }
}

async function writeAtomically(file: string, text: string): Promise<void> {
    const temporary = `${file}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
    await fsp.writeFile(temporary, text, {mode: 0o600});
    await fsp.rename(temporary, file);
}

function sha256File(file: string): Promise<string> {
    return new Promise((resolve, reject) => {
        const hash = createHash("sha256");
        fs.createReadStream(file).on("error", reject).on("data", (chunk) => hash.update(chunk)).on("end",
            () => resolve(hash.digest("hex")));
    });
}

async function removeQuietly(...files: string[]): Promise<void> {
    for (const file of files)
        await fsp.rm(file, {force: true});
}
