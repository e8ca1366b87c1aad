import fs from "node:fs/promises";
import path from "node:path";
import {parse as parseToml} from "smol-toml";

/** One model's entry in the presets file (`--models-preset`), under the id it is served by. */
export type ModelPreset = {
    /** Its GGUF file, relative to the presets file's folder (else an id found by `--models-dir` or `--model`). */
    path?: string,
    /** Other names that select it (what an agent is configured to send: `gpt-5-codex`, `claude-haiku`…). */
    aliases?: string[],
    contextSize?: number,
    parallel?: number,
    /** A chat wrapper or family id over detection (as `--chat-wrapper`); a Jinja file or builtin name as `--chat-template`. */
    chatWrapper?: string,
    chatTemplate?: string
};

export class ModelPresetsError extends Error {}

const fields: Record<string, {key: keyof ModelPreset, check: (value: unknown) => boolean, expected: string}> = {
    path: {key: "path", check: (value) => typeof value === "string" && value !== "", expected: "a file path"},
    aliases: {
        key: "aliases", expected: "a list of names",
        check: (value) => Array.isArray(value) && value.every((alias) => typeof alias === "string" && alias !== "")
    },
    context_size: {key: "contextSize", check: (value) => Number.isInteger(value) && (value as number) >= 64, expected: "an integer ≥ 64"},
    parallel: {key: "parallel", check: (value) => Number.isInteger(value) && (value as number) >= 1, expected: "an integer ≥ 1"},
    chat_wrapper: {key: "chatWrapper", check: (value) => typeof value === "string" && value !== "", expected: "a wrapper name"},
    chat_template: {key: "chatTemplate", check: (value) => typeof value === "string" && value !== "", expected: "a template"}
};

/**
 * Reads a presets file: JSON (`{"models": {"<id>": {...}}}`) or TOML (`[models.<id>]` tables), by its extension. Field
 * names are llama.cpp's and the OpenAI wire's style (`context_size`, `aliases`); an unknown field or a wrong type is an
 * error naming the model and the field, so a typo never silently loads a model with the wrong context.
 */
export async function readModelPresets(file: string): Promise<Map<string, ModelPreset>> {
    const text = await fs.readFile(file, "utf8").catch((error: Error) => {
        throw new ModelPresetsError(`Cannot read the models presets file ${file}: ${error.message}`);
    });
    let parsed: unknown;
    try {
        parsed = /\.toml$/i.test(file) ? parseToml(text) : JSON.parse(text);
    } catch (error) {
        throw new ModelPresetsError(`${file} is not valid ${/\.toml$/i.test(file) ? "TOML" : "JSON"}: ${(error as Error).message}`);
    }
    const models = (parsed as {models?: unknown} | null)?.models;
    if (typeof models !== "object" || models == null || Array.isArray(models))
        throw new ModelPresetsError(`${file}: expected a "models" table of model ids, e.g. {"models": {"coder": {"path": "…"}}}.`);
    const presets = new Map<string, ModelPreset>();
    for (const [id, entry] of Object.entries(models as Record<string, unknown>)) {
        if (typeof entry !== "object" || entry == null || Array.isArray(entry))
            throw new ModelPresetsError(`${file}: models.${id} must be a table of settings.`);
        const preset: Record<string, unknown> = {};
        for (const [name, value] of Object.entries(entry as Record<string, unknown>)) {
            const field = fields[name];
            if (field == null)
                throw new ModelPresetsError(
                    `${file}: models.${id}.${name} is not a preset setting (known: ${Object.keys(fields).join(", ")}).`
                );
            if (!field.check(value))
                throw new ModelPresetsError(`${file}: models.${id}.${name} must be ${field.expected}.`);
            preset[field.key] = name === "path" ? path.resolve(path.dirname(file), value as string) : value;
        }
        presets.set(id, preset as ModelPreset);
    }
    return presets;
}
