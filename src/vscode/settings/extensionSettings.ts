import os from "node:os";
import path from "node:path";
import {defaultConfig, type HostConfig} from "../../host/config.js";
import type {EditorSetting} from "../../host/settings/setting.js";
import {automatic} from "../../host/settings/settingKinds.js";
import {speculativeConflict, upstreamWithoutUrl, wrapperAndTemplateConflict} from "../../host/settings/settingRules.js";
import {
    editorRecord, editorSettings, settingsSection, settingsTable, type ExtensionSettings
} from "../../host/settings/settingsTable.js";

export {settingsSection, type ExtensionSettings};

/** Each field's setting under the prefix (from the settings table): what readSettings reads, and what messages name. */
export const settingKeys: Record<keyof ExtensionSettings, string> = Object.fromEntries(
    editorSettings.map(({name, setting}) => [name, setting.editor.key])
) as Record<keyof ExtensionSettings, string>;

/** The setting a person edits for a field, e.g. `localResponses.contextSize`. */
export function settingId(field: keyof ExtensionSettings): string {
    return `${settingsSection}.${settingKeys[field]}`;
}

/** Reads one setting by its key under the prefix (`vscode.WorkspaceConfiguration.get` in the extension). */
export type SettingReader = (key: string) => unknown;

/**
 * Reads and checks every setting. A value of the wrong type or out of range falls back to its default and is
 * reported in `problems`, so a typo in settings.json is said out loud instead of starting a broken server.
 */
export function readSettings(get: SettingReader): {settings: ExtensionSettings, problems: string[]} {
    const problems: string[] = [];
    const settings = editorRecord((setting) => readSetting(setting, get, problems));
    if (speculativeConflict(settings.speculative, settings.draftModel) === "draftWithoutModel") {
        problems.push(`${settingId("speculative")} is draft but ${settingId("draftModel")} names no model; using off.`);
        settings.speculative = "off";
    }
    if (upstreamWithoutUrl(settings.engine, settings.upstreamUrls)) {
        problems.push(`${settingId("engine")} is upstream but ${settingId("upstreamUrls")} lists no http(s) URL; using local.`);
        settings.engine = "local";
    }
    if (wrapperAndTemplateConflict({wrapper: settings.chatWrapper, template: settings.chatTemplate})) {
        problems.push(`${settingId("chatWrapper")} ${settings.chatWrapper} renders prompts its own way: ${settingId("chatTemplate")} `
            + "is ignored (with a template, the wrapper setting takes a family id only).");
        settings.chatTemplate = null;
    }
    return {settings, problems};
}

/** One setting's value, or its default (unset, or wrong: said in `problems`); a list's wrong items are left out. */
function readSetting<V>(setting: EditorSetting<V>, get: SettingReader, problems: string[]): V {
    const {kind, editor} = setting;
    const raw = get(editor.key);
    if (raw == null)
        return editor.default;
    const id = `${settingsSection}.${editor.key}`;
    const reading = kind.fromJson(raw);
    if ("expected" in reading) {
        const fallback = kind.toJson(editor.default);
        const shown = typeof fallback === "string" ? fallback || "nothing" : JSON.stringify(fallback);
        problems.push(`${id} must be ${reading.expected} (got ${JSON.stringify(raw)}); using ${shown}.`);
        return editor.default;
    }
    for (const item of reading.rejected ?? [])
        problems.push(`${id} must hold ${kind.item?.many ?? "other items"} (got ${JSON.stringify(item)}); ignored.`);
    return reading.value ?? editor.default;
}

/**
 * Resolves a model path as a person writes it in settings: `~` is the home folder, and a relative path is
 * relative to the first workspace folder (or the home folder without one).
 */
export function resolveModelPath(raw: string, workspaceFolder: string | null, home = os.homedir()): string {
    if (raw === "~")
        return home;
    if (raw.startsWith("~/"))
        return path.join(home, raw.slice(2));
    return path.resolve(workspaceFolder ?? home, raw);
}

/** The context per sequence and the sequences the settings ask for; null (a setting at 0): the engine's plan. */
export function contextSettings(settings: ExtensionSettings): {contextSize: number | null, parallel: number | null} {
    return {contextSize: automatic(settings.contextSize), parallel: automatic(settings.parallel)};
}

/** The host configuration these settings describe; the API keys come from SecretStorage, never from settings. */
export function toHostConfig(settings: ExtensionSettings, apiKey: string, modelPath: string | null,
    upstreamApiKey: string | null = null): HostConfig {
    const config = defaultConfig();
    for (const {name, setting} of editorSettings)
        setting.apply?.(config, settings[name]);
    config.modelPath = modelPath;
    config.apiKeys = [apiKey];
    config.upstream.apiKey = upstreamApiKey;
    if (speculativeConflict(config.speculative, config.draftModelPath) === "modelWithoutDraft")
        config.draftModelPath = null;
    return config;
}

/** What a settings change requires: the most disruptive of the changed settings' reactions (SettingReaction). */
export type SettingsChangePlan = {action: "none" | "loadModel" | "restartServer" | "rebuild", changed: (keyof ExtensionSettings)[]};

export function planSettingsChange(before: ExtensionSettings, after: ExtensionSettings): SettingsChangePlan {
    const changed = editorSettings.map(({name}) => name).filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]));
    const reactions = new Set(changed.map((name) => settingsTable[name].editor.reaction));
    // A new listen address and a new model together: the server restarts on the new model, as a rebuild does.
    if (reactions.has("rebuild") || (reactions.has("restartServer") && reactions.has("loadModel")))
        return {action: "rebuild", changed};
    if (reactions.has("restartServer"))
        return {action: "restartServer", changed};
    return {action: reactions.has("loadModel") ? "loadModel" : "none", changed};
}
