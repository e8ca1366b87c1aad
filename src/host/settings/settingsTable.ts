import {backgroundSettings} from "./backgroundSettings.js";
import {chatFormatSettings} from "./chatFormatSettings.js";
import {completionSettings} from "./completionSettings.js";
import {conversationSettings} from "./conversationSettings.js";
import {engineSettings} from "./engineSettings.js";
import {librarySettings} from "./librarySettings.js";
import {modelSettings} from "./modelSettings.js";
import {requestSettings} from "./requestSettings.js";
import {serverSettings} from "./serverSettings.js";
import {cliSetting, type CliSetting, type EditorSetting, type Setting, type SettingValue} from "./setting.js";
import {boolean} from "./settingKinds.js";
import {storeSettings} from "./storeSettings.js";

/** The prefix of every editor setting (package.json `contributes.configuration`). */
export const settingsSection = "localResponses";

/**
 * Every CLI flag and editor setting, declared once, in `--help` order: the CLI's parser and help, the editor's reader and
 * change plan, package.json's settings and the README's flag table are all derived from it (docs/architecture.md).
 */
export const settingsTable = {
    ...modelSettings,
    ...librarySettings,
    ...chatFormatSettings,
    ...serverSettings,
    ...engineSettings,
    ...requestSettings,
    ...storeSettings,
    ...backgroundSettings,
    ...conversationSettings,
    ...completionSettings,
    help: cliSetting({kind: boolean(), cli: {flag: "help", help: "show this help"}})
};

type Table = typeof settingsTable;

/** The settings the editor has: the fields of ExtensionSettings. */
export type EditorSettingName = {[K in keyof Table]: Table[K] extends {editor: object} ? K : never}[keyof Table];

/** The extension's settings, validated (see readSettings), by field. */
export type ExtensionSettings = {[K in EditorSettingName]: SettingValue<Table[K]>};

/** Every setting that has a flag, in `--help` order. */
export const cliSettings: readonly CliSetting<unknown>[] = Object.values(settingsTable).flatMap((setting: Setting<unknown>) =>
    setting.cli == null ? [] : [{...setting, cli: setting.cli}]);

/** Every editor setting with its field name, in table order (a name whose setting has an editor face is an EditorSettingName). */
export const editorSettings: readonly {name: EditorSettingName, setting: EditorSetting<unknown>}[] =
    Object.entries(settingsTable).flatMap(([name, setting]: [string, Setting<unknown>]) =>
        setting.editor == null ? [] : [{name: name as EditorSettingName, setting: {...setting, editor: setting.editor}}]);

/**
 * One value per editor setting, by field. `read` is handed each setting and returns a value of that setting's own
 * type, so the record is an ExtensionSettings: the one place the type system is told so.
 */
export function editorRecord(read: <V>(setting: EditorSetting<V>) => V): ExtensionSettings {
    return Object.fromEntries(editorSettings.map(({name, setting}) => [name, read(setting)])) as ExtensionSettings;
}
