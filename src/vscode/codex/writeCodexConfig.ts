import {mergeCodexConfig, type CodexProvider} from "./codexConfig.js";
import {ConfigFileRefusal, readConfigFile, replaceConfigFile} from "../clientConfig/configFile.js";

/**
 * What Configure Codex… did to config.toml: written (with where the previous file was kept), already as it should be,
 * or left as it is, with why (a link, not TOML, changed meanwhile): a file that cannot be merged safely is never written.
 */
export type CodexConfigWrite =
    | {outcome: "written", backup: string | null}
    | {outcome: "unchanged"}
    | {outcome: "refused", reason: string};

/** Merges this provider into `file` (see `mergeCodexConfig`) and writes it safely (see `replaceConfigFile`). */
export async function writeCodexConfig(file: string, provider: CodexProvider): Promise<CodexConfigWrite> {
    try {
        const previous = await readConfigFile(file);
        const merge = mergeCodexConfig(previous.text, provider);
        if (!merge.ok)
            return {outcome: "refused", reason: `${file} was not changed: ${merge.reason}.`};
        if (!merge.changed)
            return {outcome: "unchanged"};
        return {outcome: "written", ...await replaceConfigFile(file, previous, merge.text)};
    } catch (error) {
        if (error instanceof ConfigFileRefusal)
            return {outcome: "refused", reason: error.message};
        throw error;
    }
}
