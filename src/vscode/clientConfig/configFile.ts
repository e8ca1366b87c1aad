import {randomBytes} from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

/**
 * A client's config file as read before a merge: its text ("" when there is none yet) and its permission bits (null
 * when there is none yet). `replaceConfigFile` takes it back, to write only over the file that was merged.
 */
export type ConfigFileState = {text: string, mode: number | null};

/** Why a config file is left as it is (a link, not a regular file, changed meanwhile): the message says what to do. */
export class ConfigFileRefusal extends Error {}

/** What a write did: where the previous file was kept (null when there was none). */
export type ConfigFileWrite = {backup: string | null};

/**
 * Permission bits of a file the set-ups create: only its owner reads it. The files name no key of ours, but a
 * person's settings.json or config.toml may come to hold one of theirs (Claude Code's `env` takes keys).
 */
export const newConfigFileMode = 0o600;

/** Where the file's previous version is kept: beside it, under a name no client reads and a person will not reuse. */
export function configBackupFile(file: string): string {
    return `${file}.local-responses.bak`;
}

/**
 * Reads a client's config file. A symbolic link is refused, not followed: writing through it would change a file
 * elsewhere (a dotfiles repository, another user's file) that the person did not point the command at. So is anything
 * that is not a regular file.
 */
export async function readConfigFile(file: string): Promise<ConfigFileState> {
    const stat = await fs.lstat(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT")
            return null;
        throw error;
    });
    if (stat == null)
        return {text: "", mode: null};
    if (stat.isSymbolicLink()) {
        const target = await fs.readlink(file).catch(() => "?");
        throw new ConfigFileRefusal(`${file} is a symbolic link (to ${target}); it was not followed. Edit the file it points to `
            + "yourself, or replace the link with a file.");
    }
    if (!stat.isFile())
        throw new ConfigFileRefusal(`${file} is not a regular file.`);
    return {text: await fs.readFile(file, "utf8"), mode: stat.mode & 0o7777};
}

/**
 * Replaces the file with `text` so that a crash, a full disk or a second writer never leaves it half written: the
 * previous file is copied to `configBackupFile`, the new text goes to a temporary file in the same folder (same file
 * system, so the rename is atomic) with the previous file's mode (`newConfigFileMode` for a new file), and is renamed
 * over it. The file must still be what `previous` read: a file turned into a link, or edited meanwhile, is refused.
 */
export async function replaceConfigFile(file: string, previous: ConfigFileState, text: string): Promise<ConfigFileWrite> {
    await fs.mkdir(path.dirname(file), {recursive: true});
    const current = await readConfigFile(file);
    if (current.text !== previous.text || (current.mode == null) !== (previous.mode == null))
        throw new ConfigFileRefusal(`${file} changed while it was being merged; it was left as it is. Run the command again.`);
    const backup = current.mode != null ? configBackupFile(file) : null;
    if (backup != null)
        await writeAtomically(backup, current.text, current.mode!);
    await writeAtomically(file, text, current.mode ?? newConfigFileMode);
    return {backup};
}

/** Writes a temporary sibling (created, never reused: `wx`), flushes it, then renames it over `file`. */
async function writeAtomically(file: string, text: string, mode: number): Promise<void> {
    const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`);
    try {
        const handle = await fs.open(temporary, "wx", mode);
        try {
            await handle.writeFile(text, "utf8");
            // The umask may have narrowed the mode open() asked for: the file keeps exactly the mode it had.
            await handle.chmod(mode);
            await handle.sync();
        } finally {
            await handle.close();
        }
        await fs.rename(temporary, file);
    } catch (error) {
        await fs.rm(temporary, {force: true});
        throw error;
    }
}
