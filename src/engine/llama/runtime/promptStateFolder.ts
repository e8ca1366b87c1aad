import fsp from "node:fs/promises";
import path from "node:path";

/**
 * The prompt cache's folder as a whole (`prompt-states/`, every model's folder below it): what is on disk there, its
 * one byte budget, its TTL and its permissions. A state is the pair `<key>.state` + `<key>.json` (its manifest, written
 * last and again each time the state is used: the manifest's modification time is the state's last use). The per-model
 * caches (PromptStateCache) and the host's sweeper both keep the folder through these functions; a cache whose files
 * go under it treats them as misses.
 */

/** A committed state on disk: its folder and key, its bytes (state + manifest) and its last use (ms since the epoch). */
type StoredState = {folder: string, key: string, bytes: number, usedAt: number};

/** What one sweep removed. */
export type PromptStateSweep = {expired: number, overBudget: number, folders: number};

export type PromptStateSweepOptions = {
    /** States unused for this long go; 0 keeps them (the byte budget still applies). */
    ttlSeconds: number,
    /** The most the committed states below the root may take together, least recently used out first. */
    maxBytes: number,
    /** Folders below the root that stay even when empty (the folders of the models the host serves). */
    keepFolder: (folder: string) => boolean,
    now?: number
};

/** Owner-only: a state holds a prompt's tokens and its evaluated KV cache. */
export const privateFileMode = 0o600;
export const privateFolderMode = 0o700;

/**
 * Creates `folder` (and every folder between `root` and it) owner-only, and makes them so when they already exist:
 * `mkdir`'s mode applies only to folders it creates, and an older version or another tool may have made them 0755.
 */
export async function ensurePrivateFolders(root: string, folder: string): Promise<void> {
    await fsp.mkdir(folder, {recursive: true, mode: privateFolderMode});
    for (let level = folder; ; level = path.dirname(level)) {
        await chmodIfShared(level, privateFolderMode);
        if (level === root || !level.startsWith(root + path.sep))
            return;
    }
}

/**
 * Sweeps the whole folder: states past the TTL, then the least recently used until the committed states fit
 * `maxBytes`, then the empty folders nobody keeps. Leftovers of interrupted saves (a state without its manifest, a
 * temporary file) go once they are past the TTL too: younger ones may be a save in progress. Files and folders left
 * are made owner-only.
 */
export async function sweepPromptStates(root: string, options: PromptStateSweepOptions): Promise<PromptStateSweep> {
    const now = options.now ?? Date.now();
    const expiredBefore = options.ttlSeconds > 0 ? now - options.ttlSeconds * 1000 : -Infinity;
    const scan = await scanFolders(root);
    let expired = 0;
    for (const loose of scan.loose)
        if (loose.modifiedAt < expiredBefore)
            await fsp.rm(loose.file, {force: true});
    const kept: StoredState[] = [];
    for (const state of scan.states) {
        if (state.usedAt < expiredBefore) {
            await removeState(state);
            expired++;
        } else
            kept.push(state);
    }
    const overBudget = await dropOverBudget(kept, options.maxBytes);
    let folders = 0;
    // Deepest first, so that a model's folder goes before `models/` is looked at; rmdir fails on a folder not empty.
    for (const folder of scan.folders.filter((folder) => folder !== root).sort((a, b) => b.length - a.length))
        if (!options.keepFolder(folder))
            folders += await fsp.rmdir(folder).then(() => 1, () => 0);
    return {expired, overBudget, folders};
}

/** Keeps the committed states below `root` within `maxBytes`, least recently used out first. Resolves to how many went. */
export async function enforcePromptStateBudget(root: string, maxBytes: number): Promise<number> {
    return dropOverBudget((await scanFolders(root)).states, maxBytes);
}

async function dropOverBudget(states: StoredState[], maxBytes: number): Promise<number> {
    let total = states.reduce((sum, state) => sum + state.bytes, 0);
    let dropped = 0;
    for (const state of [...states].sort((a, b) => a.usedAt - b.usedAt)) {
        if (total <= maxBytes)
            break;
        await removeState(state);
        total -= state.bytes;
        dropped++;
    }
    return dropped;
}

/** The manifest goes first: from then on the state file is an orphan that no lookup uses. */
async function removeState(state: StoredState): Promise<void> {
    await fsp.rm(path.join(state.folder, `${state.key}.json`), {force: true});
    await fsp.rm(path.join(state.folder, `${state.key}.state`), {force: true});
}

type Scan = {states: StoredState[], loose: {file: string, modifiedAt: number}[], folders: string[]};

/** Every folder below `root` (itself included), made owner-only, with its committed states and its loose files. */
async function scanFolders(root: string): Promise<Scan> {
    const scan: Scan = {states: [], loose: [], folders: []};
    const pending = [root];
    for (let folder = pending.pop(); folder != null; folder = pending.pop()) {
        const entries = await fsp.readdir(folder, {withFileTypes: true}).catch(() => null);
        if (entries == null)
            continue;
        scan.folders.push(folder);
        await chmodIfShared(folder, privateFolderMode);
        const files = new Map<string, {size: number, modifiedAt: number}>();
        for (const entry of entries) {
            const file = path.join(folder, entry.name);
            if (entry.isDirectory())
                pending.push(file);
            else if (entry.isFile()) {
                const stat = await fsp.stat(file).catch(() => null);
                if (stat == null)
                    continue;
                files.set(entry.name, {size: stat.size, modifiedAt: stat.mtimeMs});
                if ((stat.mode & 0o077) !== 0)
                    await fsp.chmod(file, privateFileMode).catch(() => undefined);
            }
        }
        for (const [name, file] of files) {
            const key = name.endsWith(".json") ? name.slice(0, -".json".length) : null;
            const state = key == null ? undefined : files.get(`${key}.state`);
            if (key != null && state != null)
                scan.states.push({folder, key, bytes: state.size + file.size, usedAt: file.modifiedAt});
            else if (!(name.endsWith(".state") && files.has(`${name.slice(0, -".state".length)}.json`)))
                scan.loose.push({file: path.join(folder, name), modifiedAt: file.modifiedAt});
        }
    }
    return scan;
}

async function chmodIfShared(target: string, mode: number): Promise<void> {
    const stat = await fsp.stat(target).catch(() => null);
    if (stat != null && (stat.mode & 0o777) !== mode)
        await fsp.chmod(target, mode).catch(() => undefined);
}

/**
 * Writes a state file with `write` (llama.cpp), owner-only: llama.cpp creates it with the process's umask (0644 mostly),
 * so it is created here first, since `fopen(…, "wb")` keeps an existing file's mode, and made so again after in case it
 * was replaced. The folders are made again too: the sweeper removes the empty folders of models it does not know (yet).
 */
export async function writePrivately(budgetFolder: string, folder: string, file: string,
    write: (file: string) => Promise<unknown>): Promise<void> {
    await ensurePrivateFolders(budgetFolder, folder);
    await fsp.writeFile(file, "", {mode: privateFileMode});
    await write(file);
    await fsp.chmod(file, privateFileMode);
}
