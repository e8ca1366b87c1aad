import {mergeClaudeSettings, type ClaudeProvider} from "./claudeSettings.js";
import {ConfigFileRefusal, readConfigFile, replaceConfigFile} from "../clientConfig/configFile.js";

/**
 * Asks the person whether the `env` keys that would override the key helper may be removed from their file. The
 * editor asks in a modal; a path that cannot ask answers no (`keepOverridingKeys`): a key a person set is theirs.
 */
export type ConfirmKeyRemoval = (keys: string[]) => Promise<boolean>;

/** The answer where nobody can be asked: keep the person's keys. */
export const keepOverridingKeys: ConfirmKeyRemoval = () => Promise.resolve(false);

/**
 * What Configure Claude Code… did to settings.json: written (with where the previous file was kept), already as it
 * should be, or left as it is with why (a link, not JSON, changed meanwhile). `removed` and `kept` name the overriding
 * keys taken out (the person agreed) or left in `env` (they did not, or could not be asked).
 */
export type ClaudeSettingsWrite =
    | {outcome: "written", backup: string | null, removed: string[], kept: string[]}
    | {outcome: "unchanged", removed: string[], kept: string[]}
    | {outcome: "refused", reason: string};

/**
 * Merges the block into `file` (see `mergeClaudeSettings`), asking before it takes out a key the person set, and
 * writes it safely (see `replaceConfigFile`).
 */
export async function writeClaudeSettings(
    file: string, provider: ClaudeProvider, confirm: ConfirmKeyRemoval
): Promise<ClaudeSettingsWrite> {
    try {
        const previous = await readConfigFile(file);
        let merge = mergeClaudeSettings(previous.text, provider);
        if (merge.ok && merge.kept.length > 0 && await confirm(merge.kept))
            merge = mergeClaudeSettings(previous.text, provider, true);
        if (!merge.ok)
            return {outcome: "refused", reason: `${file} was not changed: ${merge.reason}.`};
        const {removed, kept} = merge;
        if (!merge.changed)
            return {outcome: "unchanged", removed, kept};
        return {outcome: "written", ...await replaceConfigFile(file, previous, merge.text), removed, kept};
    } catch (error) {
        if (error instanceof ConfigFileRefusal)
            return {outcome: "refused", reason: error.message};
        throw error;
    }
}
