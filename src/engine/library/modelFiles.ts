import fs from "node:fs/promises";
import path from "node:path";

/** A model found on disk: one GGUF file, or the first part of a split one, and a vision projector beside it. */
export type ModelFile = {
    /** The file name without `.gguf` (and without a split file's `-00001-of-00003`). */
    id: string,
    /** The file to load (a split model's first part: llama.cpp finds the others). */
    path: string,
    /** Bytes of every part. */
    bytes: number,
    parts: number,
    /** An `mmproj-*.gguf` in the same folder (the model's vision projector), when there is exactly one, or one named for it. */
    projector: string | null,
    /** The quantization the name says (Q4_K_M, IQ4_XS, Q8_0, F16, BF16…), or null. */
    quantization: string | null
};

const splitPart = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/i;
const quantization = /(?:^|[-_.])((?:I?Q\d(?:_[0-9A-Z]+)*)|F16|BF16|F32|MXFP4)(?=$|[-_.])/i;

/** A model's id from its file name: what clients put in `model`. */
export function modelIdOf(file: string): string {
    const name = path.basename(file);
    return (splitPart.exec(name)?.[1] ?? name.replace(/\.gguf$/i, ""));
}

/** The quantization a model's file name says, or null. */
export function quantizationOf(file: string): string | null {
    return quantization.exec(modelIdOf(file))?.[1]?.toUpperCase() ?? null;
}

/**
 * Every model in `folder` and in its direct subfolders (a folder per model, as downloads often are), as llama.cpp's
 * router reads a models folder: `.gguf` files, a split model once (by its first part), `mmproj-*` projectors attached to
 * the model beside them rather than listed. Sorted by id; the same id twice keeps the first path found (sorted by path).
 */
export async function scanModelsFolder(folder: string): Promise<ModelFile[]> {
    const found = await modelsIn(folder);
    for (const entry of await fs.readdir(folder, {withFileTypes: true}))
        if (entry.isDirectory() && !entry.name.startsWith("."))
            found.push(...await modelsIn(path.join(folder, entry.name)));
    const byId = new Map<string, ModelFile>();
    for (const model of found.sort((a, b) => a.path.localeCompare(b.path)))
        if (!byId.has(model.id))
            byId.set(model.id, model);
    return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}

/** One model file named on its own (`--model`, a preset's `path`); `id` overrides the file name's. */
export async function modelFileAt(file: string, id: string = modelIdOf(file)): Promise<ModelFile> {
    const stat = await fs.stat(file).catch(() => null);
    if (stat == null || !stat.isFile())
        throw new Error(`The model file ${file} does not exist (or is not a file).`);
    return {id, path: path.resolve(file), bytes: stat.size, parts: 1, projector: null, quantization: quantizationOf(file)};
}

/** The models of one folder (not its subfolders). */
async function modelsIn(folder: string): Promise<ModelFile[]> {
    const names = (await fs.readdir(folder, {withFileTypes: true}).catch(() => []))
        .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && /\.gguf$/i.test(entry.name) && !entry.name.startsWith("."))
        .map((entry) => entry.name);
    const projectors = names.filter((name) => /^mmproj/i.test(name));
    const models: ModelFile[] = [];
    for (const name of names.filter((name) => !/^mmproj/i.test(name))) {
        const split = splitPart.exec(name);
        if (split != null && Number(split[2]) !== 1)
            continue;
        const parts = split == null ? [name]
            : names.filter((other) => splitPart.exec(other)?.[1] === split[1]);
        const sizes = await Promise.all(parts.map((part) => fs.stat(path.join(folder, part)).then((stat) => stat.size, () => 0)));
        const id = modelIdOf(name);
        const projector = projectors.find((file) => file.toLowerCase().includes(id.toLowerCase()))
            ?? (projectors.length === 1 ? projectors[0] : undefined);
        models.push({
            id, path: path.join(folder, name), bytes: sizes.reduce((sum, size) => sum + size, 0), parts: parts.length,
            projector: projector == null ? null : path.join(folder, projector), quantization: quantizationOf(name)
        });
    }
    return models;
}
