import {editorSetting} from "./setting.js";
import {boolean, integer, list, optionalText} from "./settingKinds.js";

/**
 * Code completion as you type (ghost text, `src/vscode/completions/`): editor only, read by the editor's provider on
 * each change, so none of them touches the host (`reaction: "none"`). Orders 60–69 put them last in the settings editor.
 * Restricted, as they run the model on every pause in typing and size its work, except the exclusions a workspace
 * may add to (its own secrets, generated files).
 */
export const completionSettings = {
    completionsEnabled: editorSetting({
        kind: boolean(),
        editor: {
            key: "completions.enabled", default: true, reaction: "none", restricted: true, order: 60, markdown: true,
            description: "Suggest code as you type (ghost text; Tab accepts) from the model, answered in process with its own "
                + "fill-in-the-middle tokens. Models without them (GGUF `tokenizer.ggml.fim_pre/suf/mid`) suggest nothing and "
                + "the status bar says so. The status bar's **Completions** item toggles it."
        }
    }),
    completionsModel: editorSetting({
        kind: optionalText(),
        editor: {
            key: "completions.model", default: null, reaction: "none", restricted: true, order: 61, markdown: true,
            description: "The model that completes code: a model library's id (it loads on demand). Empty: the loaded model, "
                + "when it has fill-in-the-middle tokens."
        }
    }),
    completionsExclude: editorSetting({
        kind: list({many: "glob patterns"}),
        editor: {
            key: "completions.exclude", default: ["**/.env", "**/.env.*", "**/*.pem", "**/*.key"], reaction: "none",
            restricted: false, order: 62, markdown: true,
            description: "Files never completed nor sent as context, by glob (`**/secrets/**`, `*.min.js`; a pattern without `/` "
                + "matches the file name)."
        }
    }),
    completionsDebounceMs: editorSetting({
        kind: integer({min: 0, max: 5000}),
        editor: {
            key: "completions.debounceMs", default: 150, reaction: "none", restricted: true, order: 63,
            description: "Milliseconds of quiet after a keystroke before a suggestion is asked for (a keystroke meanwhile asks "
                + "for none)."
        }
    }),
    completionsMaxTokens: editorSetting({
        kind: integer({min: 1, max: 4096}),
        editor: {
            key: "completions.maxTokens", default: 128, reaction: "none", restricted: true, order: 64,
            description: "Most tokens one suggestion generates."
        }
    }),
    completionsTimeLimitMs: editorSetting({
        kind: integer({min: 100, max: 60_000}),
        editor: {
            key: "completions.timeLimitMs", default: 1500, reaction: "none", restricted: true, order: 65,
            description: "Time budget of one suggestion: past it, generation stops at the next line end (llama.cpp's "
                + "t_max_predict_ms)."
        }
    }),
    completionsPrefixLines: editorSetting({
        kind: integer({min: 1, max: 4096}),
        editor: {
            key: "completions.prefixLines", default: 256, reaction: "none", restricted: true, order: 66,
            description: "Lines before the cursor the model reads."
        }
    }),
    completionsSuffixLines: editorSetting({
        kind: integer({min: 0, max: 4096}),
        editor: {
            key: "completions.suffixLines", default: 64, reaction: "none", restricted: true, order: 67,
            description: "Lines after the cursor the model reads."
        }
    }),
    completionsMaxFileKiB: editorSetting({
        kind: integer({min: 1}),
        editor: {
            key: "completions.maxFileKiB", default: 1024, reaction: "none", restricted: true, order: 68,
            description: "Files larger than this (KiB) are not completed nor sent as context."
        }
    })
};
