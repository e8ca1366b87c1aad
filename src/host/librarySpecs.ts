import type {LibraryModelSpec} from "../engine/library/LibraryEntry.js";
import {modelFileAt, scanModelsFolder, type ModelFile} from "../engine/library/modelFiles.js";
import type {HostConfig} from "./config.js";
import {readModelPresets, ModelPresetsError, type ModelPreset} from "./modelPresets.js";

/**
 * Whether the configuration asks for a model library: a models folder, a presets file, more than one `--model`, or
 * upstreams beside the local models (their models are entries of the library).
 */
export function usesLibrary(config: Pick<HostConfig, "engine" | "library">): boolean {
    const {modelsDir, presetsFile, extraModelPaths, withUpstream} = config.library;
    return config.engine === "local" && (modelsDir != null || presetsFile != null || extraModelPaths.length > 0 || withUpstream);
}

/**
 * The library's models from the configuration: each `--model` (the first is the default), each preset with a `path`, then
 * each GGUF of `--models-dir`; the first source to name an id keeps it. A preset without `path` configures the model of
 * that id found elsewhere (and is an error when there is none: a typo must not pass unseen).
 */
export async function librarySpecs(
    config: Pick<HostConfig, "modelPath" | "library" | "contextSize" | "parallel">
): Promise<{models: LibraryModelSpec[], defaultModel: string | null}> {
    const {extraModelPaths, modelsDir, presetsFile} = config.library;
    const files = new Map<string, ModelFile>();
    const add = (file: ModelFile) => {
        if (!files.has(file.id))
            files.set(file.id, file);
    };
    const named = [config.modelPath, ...extraModelPaths].filter((file): file is string => file != null);
    for (const file of named)
        add(await modelFileAt(file));
    const presets = presetsFile == null ? new Map<string, ModelPreset>() : await readModelPresets(presetsFile);
    for (const [id, preset] of presets)
        if (preset.path != null)
            add(await modelFileAt(preset.path, id));
    if (modelsDir != null)
        for (const file of await scanModelsFolder(modelsDir))
            add(file);
    for (const id of presets.keys())
        if (!files.has(id))
            throw new ModelPresetsError(`${presetsFile}: models.${id} names no model found by --model or --models-dir; give it a path.`);
    const models = [...files.values()].map((file): LibraryModelSpec => {
        const preset: ModelPreset = presets.get(file.id) ?? {};
        return {
            ...file, aliases: preset.aliases ?? [], contextSize: preset.contextSize ?? config.contextSize,
            parallel: preset.parallel ?? config.parallel,
            ...preset.chatWrapper != null && {chatWrapper: preset.chatWrapper},
            ...preset.chatTemplate != null && {chatTemplate: preset.chatTemplate}
        };
    });
    return {models, defaultModel: named.length > 0 ? models[0]!.id : null};
}
