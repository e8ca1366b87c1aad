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

/**
 * Reads the key from a 0600 file, creating it with a fresh key on first use. A file readable by others
 * is refused rather than trusted. The file may hold several keys, one per line (`#` starts a comment):
 * each is accepted and owns its own stored objects; `key` is the first.
 */
export async function readOrCreateApiKey(file: string): Promise<{key: string, keys: string[], created: boolean}> {
    try {
        const stat = await fs.stat(file);
        if ((stat.mode & 0o077) !== 0)
            throw new Error(`API key file ${file} is readable by other users (mode ${(stat.mode & 0o777).toString(8)}); run: chmod 600 ${file}`);
        const keys = (await fs.readFile(file, "utf8")).split("\n").map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"));
        if (keys.length === 0)
            throw new Error(`API key file ${file} is empty.`);
        return {key: keys[0]!, keys, created: false};
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT")
            throw error;
    }
    const key = generateApiKey();
    await fs.mkdir(path.dirname(file), {recursive: true, mode: 0o700});
    await fs.writeFile(file, `${key}\n`, {mode: 0o600, flag: "wx"});
    return {key, keys: [key], created: true};
}
