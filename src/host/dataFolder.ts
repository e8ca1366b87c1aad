import {randomBytes} from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Where the CLI keeps its durable store and sealing secrets unless `--data-dir` says otherwise: the user's data
 * directory (XDG_DATA_HOME or ~/.local/share on Linux, ~/Library/Application Support on macOS, %LOCALAPPDATA% on
 * Windows), folder `local-responses`.
 */
export function defaultDataDir(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
    const home = os.homedir();
    if (platform === "win32")
        return path.join(env.LOCALAPPDATA ?? path.join(home, "AppData", "Local"), "local-responses");
    if (platform === "darwin")
        return path.join(home, "Library", "Application Support", "local-responses");
    return path.join(env.XDG_DATA_HOME != null && env.XDG_DATA_HOME !== "" ? env.XDG_DATA_HOME : path.join(home, ".local", "share"),
        "local-responses");
}

/**
 * A sealing secret (reasoning `encrypted_content`, compaction items) kept in a 0600 file of the data folder, so
 * what was sealed before a restart still verifies after it; created with 32 random bytes on first use. A file
 * readable by others is refused rather than trusted, like the API key file.
 */
export function readOrCreateSecret(file: string): string {
    try {
        const stat = fs.statSync(file);
        if (process.platform !== "win32" && (stat.mode & 0o077) !== 0)
            throw new Error(
                `Secret file ${file} is readable by other users (mode ${(stat.mode & 0o777).toString(8)}); run: chmod 600 ${file}`
            );
        const secret = fs.readFileSync(file, "utf8").trim();
        if (secret !== "")
            return secret;
        throw new Error(`Secret file ${file} is empty; delete it to have a new secret made (what the old one sealed stops verifying).`);
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT")
            throw error;
    }
    fs.mkdirSync(path.dirname(file), {recursive: true, mode: 0o700});
    const secret = randomBytes(32).toString("base64url");
    try {
        fs.writeFileSync(file, `${secret}\n`, {mode: 0o600, flag: "wx"});
        return secret;
    } catch (error) {
        // Another process made it first: use theirs.
        if ((error as NodeJS.ErrnoException).code === "EEXIST")
            return readOrCreateSecret(file);
        throw error;
    }
}
