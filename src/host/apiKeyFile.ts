import {randomBytes} from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export function generateApiKey(): string {
    return `sk-local-${randomBytes(24).toString("base64url")}`;
}

export function defaultApiKeyFile(): string {
    const base = process.env.XDG_CONFIG_HOME ?? path.join(os.homedir(), ".config");
    return path.join(base, "local-responses", "api-key");
}

/** The file's keys (`key` is the first), and whether this call made the file. */
export type ApiKeys = {key: string, keys: string[], created: boolean};

export type ApiKeyFileOptions = {
    /** Whose file-permission rules apply (a test simulates Windows on any system). */
    platform?: NodeJS.Platform,
    /** How long an empty file is read again before it is refused as empty: another process may be writing its key. */
    emptyWaitMs?: number
};

/**
 * Reads the key from a 0600 file, creating it with a fresh key on first use. A file readable by others
 * is refused rather than trusted. The file may hold several keys, one per line (`#` starts a comment):
 * each is accepted and owns its own stored objects; `key` is the first.
 *
 * On Windows there is no mode to check (Node reports 0666 for every writable file, whoever may read it): the file is
 * protected by the access list it inherits from its folder, under the user's profile by default (readable by that
 * user, SYSTEM and Administrators only); a file put elsewhere is as private as the folder it is in.
 *
 * Two servers started at once on a new path both get the same key: the file is created exclusively (`wx`), and the
 * one that loses the race reads the other's key, waiting briefly until it is written.
 */
export async function readOrCreateApiKey(file: string, options: ApiKeyFileOptions = {}): Promise<ApiKeys> {
    const existing = await readKeys(file, options);
    if (existing != null)
        return {key: existing[0]!, keys: existing, created: false};
    const key = generateApiKey();
    await fs.mkdir(path.dirname(file), {recursive: true, mode: 0o700});
    try {
        await fs.writeFile(file, `${key}\n`, {mode: 0o600, flag: "wx"});
        return {key, keys: [key], created: true};
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST")
            throw error;
    }
    // Another process created it first: its key is the one.
    const theirs = await readKeys(file, options);
    if (theirs == null)
        throw new Error(`API key file ${file} was created and removed again while this server started; start it again.`);
    return {key: theirs[0]!, keys: theirs, created: false};
}

/**
 * The keys of the file, or null when there is no file. An empty file is read again for `emptyWaitMs` (the moment
 * between another process creating it and writing its key) before it is refused.
 */
async function readKeys(file: string, options: ApiKeyFileOptions): Promise<string[] | null> {
    const platform = options.platform ?? process.platform;
    const waitMs = options.emptyWaitMs ?? 2000;
    for (const started = Date.now(); ; await new Promise((resolve) => setTimeout(resolve, 20))) {
        let text: string;
        try {
            const stat = await fs.stat(file);
            const mode = stat.mode & 0o777;
            if (platform !== "win32" && (mode & 0o077) !== 0)
                throw new Error(`API key file ${file} is readable by other users (mode ${mode.toString(8)}); run: chmod 600 ${file}`);
            text = await fs.readFile(file, "utf8");
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code === "ENOENT")
                return null;
            throw error;
        }
        const keys = text.split("\n").map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"));
        if (keys.length > 0)
            return keys;
        if (Date.now() - started >= waitMs)
            throw new Error(`API key file ${file} is empty.`);
    }
}
