import type {HostConfig} from "../config.js";
import type {Kind} from "./settingKinds.js";

/**
 * What a change of an editor setting requires, least disruptive first (the editor's `planSettingsChange`):
 * - `none`: nothing running depends on it;
 * - `loadModel`: another model file;
 * - `restartServer`: a new listen address;
 * - `rebuild`: engine, store or request-handling options fixed when the core is created: a new core, with the model
 *   reloaded and the server restarted if they were running.
 */
export type SettingReaction = "none" | "loadModel" | "restartServer" | "rebuild";

/** A setting's CLI face: `--flag`, its environment variable and its `--help` line (and the README's). */
export type CliFace = {
    /** The flag without its dashes. */
    flag: string,
    /** Absent: no variable (`--help`). */
    env?: string,
    help: string
};

/** A setting's editor face: its key under `localResponses.` and what package.json declares for it. */
export type EditorFace<V> = {
    key: string,
    /** The value when unset, and package.json's `default`. */
    default: V,
    reaction: SettingReaction,
    /**
     * Chooses what runs, what is loaded, where the server listens, where data goes or how much of the machine is used:
     * an untrusted workspace may not set it (package.json's `restrictedConfigurations`).
     */
    restricted: boolean,
    scope?: "machine" | "machine-overridable",
    /** The settings editor's order (package.json `order`; the properties are written in this order too). */
    order: number,
    description: string,
    /** The description is Markdown (package.json `markdownDescription`). */
    markdown?: true,
    enumDescriptions?: string[],
    /** The JSON schema of a list's items, where the kind's own is not all of it. */
    items?: object
};

/**
 * One setting, declared once: what its value is, its CLI and editor faces, and where it goes in the host configuration
 * (`apply`; absent for what is no server option: the API key file, `--help`, autoStart).
 */
export type Setting<V> = {
    kind: Kind<V>,
    cli?: CliFace,
    editor?: EditorFace<V>,
    apply?(config: HostConfig, value: V): void
};

export type EditorSetting<V> = Setting<V> & {editor: EditorFace<V>};
export type CliSetting<V> = Setting<V> & {cli: CliFace};

/** Declares a setting the editor has (and the CLI too, with `cli`); its value type comes from its kind. */
export function editorSetting<V>(setting: Omit<Setting<V>, "editor"> & {editor: EditorFace<NoInfer<V>>}): EditorSetting<V> {
    return setting;
}

/** Declares a CLI-only setting. */
export function cliSetting<V>(setting: CliSetting<V> & {editor?: never}): CliSetting<V> {
    return setting;
}

/** The value a setting holds. */
export type SettingValue<S> = S extends {kind: Kind<infer V>} ? V : never;
