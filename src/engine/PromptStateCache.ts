import {createHash, randomBytes} from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";

/**
 * What a saved state may only ever be loaded into: the model file that wrote it (its fingerprint) and the context
 * settings it was evaluated with. node-llama-cpp warns that a state loaded into another model can crash the process.
 */
export type PromptStateIdentity = {model: string, context: string};

export type PromptStateCacheOptions = {
    folder: string,
    identity: PromptStateIdentity,
    /** Disk budget for every state in the folder (all models), least recently used out first. Defaults to `defaultPromptCacheMaxBytes`. */
    maxBytes?: number,
    /** Shorter prefixes are not worth a file. Defaults to `defaultPromptCacheMinTokens`. */
    minTokens?: number,
    log?: (line: string) => void
};

/** Disk budget of the prompt cache: 2 GiB. */
export const defaultPromptCacheMaxBytes = 2 * 1024 ** 3;
/** Prompts shorter than this (in tokens) are not saved. */
export const defaultPromptCacheMinTokens = 1024;

/** A saved prefix that a prompt starts with: load `file`, then evaluate the prompt from `tokenCount` on. */
export type PromptStateHit = {key: string, file: string, tokenCount: number};

/** `<key>.json` beside `<key>.state`: written after the state file is complete, so a state without one is never used. */
type Manifest = {version: 1, key: string, model: string, context: string, tokens: number[], stateBytes: number, stateSha256: string, usedAt: number};

const manifestVersion = 1;

/**
 * Evaluated prompt prefixes kept on disk across restarts (`saveStateToFile` / `loadStateFromFile` do the writing and
 * reading; this class decides what, where, whether a file may be loaded, and what to drop). Keyed by the model's
 * fingerprint, the context settings and the prefix's tokens; a file is used only when its manifest names this exact
 * model and context, and its size and SHA-256 match what was written (a half-written or truncated file is a miss).
 */
export class PromptStateCache {
    private readonly entries = new Map<string, Manifest>();
    private saving: Promise<unknown> = Promise.resolve();
    public readonly maxBytes: number;
    public readonly minTokens: number;

    private constructor(private readonly options: PromptStateCacheOptions) {
        this.maxBytes = options.maxBytes ?? defaultPromptCacheMaxBytes;
        this.minTokens = options.minTokens ?? defaultPromptCacheMinTokens;
    }

    /** Reads the folder's manifests; leftovers of interrupted saves (temporary files, states without a manifest) are removed. */
    public static async open(options: PromptStateCacheOptions): Promise<PromptStateCache> {
        const cache = new PromptStateCache(options);
        await fsp.mkdir(options.folder, {recursive: true, mode: 0o700});
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
        await cache.enforceBudget();
        return cache;
    }

    /**
     * The saved state sharing the longest prefix with `tokens` (at least `minTokens`), written by this model and
     * context, or null (a miss is never a load). `tokenCount` is the shared prefix: a state holds a whole earlier
     * prompt and its answer, and what follows the shared part is erased after loading.
     */
    public find(tokens: readonly number[]): PromptStateHit | null {
        let best: {entry: Manifest, shared: number} | null = null;
        for (const entry of this.entries.values()) {
            if (entry.model !== this.options.identity.model || entry.context !== this.options.identity.context)
                continue;
            const shared = sharedPrefixLength(entry.tokens, tokens);
            if (shared >= this.minTokens && (best == null || shared > best.shared))
                best = {entry, shared};
        }
        return best == null ? null : {key: best.entry.key, file: this.stateFile(best.entry.key), tokenCount: best.shared};
    }

    /** Whether a saved state already covers most of `tokens` (saving them again would add little). */
    public covers(tokens: readonly number[]): boolean {
        const hit = this.find(tokens);
        return hit != null && hit.tokenCount >= tokens.length / 2;
    }

    /**
     * Loads a hit through `load` (the sequence's `loadStateFromFile`) after checking the file is whole; false (and
     * the entry dropped) when it is not, so the caller evaluates the prompt cold.
     */
    public async restore(hit: PromptStateHit, load: (file: string) => Promise<void>): Promise<boolean> {
        const entry = this.entries.get(hit.key);
        if (entry == null || entry.model !== this.options.identity.model || entry.context !== this.options.identity.context)
            return false;
        const digest = await sha256File(hit.file).catch(() => null);
        if (digest !== entry.stateSha256) {
            this.options.log?.(`prompt cache: ${path.basename(hit.file)} does not match its manifest (truncated or altered); dropped`);
            await this.drop(entry.key);
            return false;
        }
        await load(hit.file);
        entry.usedAt = Date.now();
        await writeAtomically(this.manifestFile(entry.key), JSON.stringify(entry));
        return true;
    }

    /**
     * Saves the state of an evaluated prefix through `write` (the sequence's `saveStateToFile`), one save at a time,
     * off the caller's path (await the result only to know it is done). Prefixes shorter than `minTokens`, already
     * saved, or larger than the whole budget are skipped: false.
     */
    public save(tokens: readonly number[], write: (file: string) => Promise<unknown>): Promise<boolean> {
        const result = this.saving.then(() => this.saveNow(tokens, write));
        this.saving = result.catch(() => undefined);
        return result;
    }

    public stats(): {entries: number, bytes: number} {
        return {entries: this.entries.size, bytes: this.bytesUsed()};
    }

    private async saveNow(tokens: readonly number[], write: (file: string) => Promise<unknown>): Promise<boolean> {
        if (tokens.length < this.minTokens)
            return false;
        const {model, context} = this.options.identity;
        const key = createHash("sha256").update(`${model}\0${context}\0${tokens.join(",")}`).digest("hex").slice(0, 40);
        if (this.entries.has(key))
            return false;
        const temporary = `${this.stateFile(key)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
        try {
            await write(temporary);
            const stateBytes = (await fsp.stat(temporary)).size;
            if (stateBytes > this.maxBytes) {
                await removeQuietly(temporary);
                return false;
            }
            const manifest: Manifest = {
                version: manifestVersion, key, model, context, tokens: [...tokens], stateBytes, stateSha256: await sha256File(temporary), usedAt: Date.now()
            };
            await fsp.rename(temporary, this.stateFile(key));
            await writeAtomically(this.manifestFile(key), JSON.stringify(manifest));
            this.entries.set(key, manifest);
        } catch (error) {
            await removeQuietly(temporary);
            throw error;
        }
        await this.enforceBudget();
        return this.entries.has(key);
    }

    private async enforceBudget(): Promise<void> {
        const byAge = [...this.entries.values()].sort((a, b) => a.usedAt - b.usedAt);
        for (const entry of byAge) {
            if (this.bytesUsed() <= this.maxBytes)
                return;
            await this.drop(entry.key);
        }
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
        return manifest.version === manifestVersion && typeof manifest.key === "string" && Array.isArray(manifest.tokens)
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
        fs.createReadStream(file).on("error", reject).on("data", (chunk) => hash.update(chunk)).on("end", () => resolve(hash.digest("hex")));
    });
}

async function removeQuietly(...files: string[]): Promise<void> {
    for (const file of files)
        await fsp.rm(file, {force: true});
}
