import fs from "node:fs/promises";

/** A client's config file as text, or "" when it does not exist yet (any other read error is the caller's). */
export async function readTextOrEmpty(file: string): Promise<string> {
    return fs.readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT")
            return "";
        throw error;
    });
}
