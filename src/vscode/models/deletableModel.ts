import fs from "node:fs/promises";
import path from "node:path";

/**
 * Checks that a path the Models view asks to delete is one of the files Download Model… writes: a regular `.gguf`
 * file (not a link, which could point anywhere) directly in the models folder, both compared by their real paths.
 * The path arrives as a command argument, which any extension or keybinding can pass, so the view's own row kinds
 * are not enough. Resolves to the path to delete; rejects with the reason, in words a person can act on, otherwise.
 */
export async function deletableModel(modelPath: string, modelDirectory: string): Promise<string> {
    const name = path.basename(modelPath);
    const refuse = (why: string) => new Error(`Refusing to delete ${modelPath}: ${why}`);
    if (!name.toLowerCase().endsWith(".gguf"))
        throw refuse("only .gguf model files are deleted.");
    const stat = await fs.lstat(modelPath).catch((error: NodeJS.ErrnoException) => {
        throw refuse(error.code === "ENOENT" ? "it no longer exists." : `it cannot be read (${error.code ?? error.message}).`);
    });
    if (stat.isSymbolicLink())
        throw refuse("it is a link; only files downloaded into the models folder are deleted (the link's target stays).");
    if (!stat.isFile())
        throw refuse("it is not a regular file.");
    const [realFile, realDirectory] = await Promise.all([fs.realpath(modelPath), fs.realpath(modelDirectory).catch(() => null)]);
    if (realDirectory == null || path.dirname(realFile) !== realDirectory)
        throw refuse(`it is not in the models folder (${modelDirectory}).`);
    return modelPath;
}
