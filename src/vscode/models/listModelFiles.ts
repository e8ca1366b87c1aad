import fs from "node:fs/promises";
import path from "node:path";

/** A model file on disk; its size is null when it could not be read. */
export type ModelFile = {path: string, bytes: number | null};

/** The .gguf files in a folder (not its partial downloads), with their sizes; none when the folder does not exist. */
export async function listModelFiles(directory: string): Promise<ModelFile[]> {
    const entries = await fs.readdir(directory, {withFileTypes: true}).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT")
            return [];
        throw error;
    });
    const files = entries.filter((entry) => entry.isFile() && entry.name.toLowerCase().endsWith(".gguf")).map(
        (entry) => path.join(directory, entry.name)
    );
    return Promise.all(files.sort().map(async (file) => ({path: file, bytes: await fs.stat(file).then((stat) => stat.size, () => null)})));
}
