import {isDeepStrictEqual} from "node:util";
import {parse, stringify, type TomlTable} from "smol-toml";
import {editCodexConfigLines} from "./codexConfigLines.js";
import {clientKeyShellHint, clientKeyVariable} from "../clientConfig/clientKey.js";

/** The environment variable Codex reads the key from: the key itself never goes into config.toml. */
export const codexKeyVariable = clientKeyVariable;
export const codexProviderId = "local-responses";

export type CodexProvider = {
    endpoint: string,
    model: string,
    /** Context tokens a request may use (the loaded model's per sequence); unknown when no model is loaded. */
    contextWindow?: number
};

/**
 * Share of the context at which Codex compacts its history. Codex estimates tokens with its own tokenizer, not the
 * model's, and the answer needs room too: compacting at 80 % keeps a turn from being refused for its length.
 */
const autoCompactShare = 0.8;

/**
 * Integers are read as BigInt and every JavaScript number written as a float: so a person's `1.0` stays a float and
 * their `9007199254740993` stays exact, and our own integers are written as BigInt.
 */
const readOptions = {integersAsBigInt: true} as const;
const writeOptions = {numbersAsFloat: true} as const;

/**
 * The top-level keys this provider sets: the provider and model, and, when the context is known, its window and the
 * size at which Codex compacts (Codex does not know a local model's window, and would otherwise send a history the
 * model cannot hold).
 */
export function codexTopLevel(provider: CodexProvider): TomlTable {
    const keys: TomlTable = {model_provider: codexProviderId, model: provider.model};
    if (provider.contextWindow != null) {
        keys.model_context_window = BigInt(provider.contextWindow);
        keys.model_auto_compact_token_limit = BigInt(Math.floor(provider.contextWindow * autoCompactShare));
    }
    return keys;
}

/** The `[model_providers.local-responses]` table for this endpoint. */
export function codexProviderTable({endpoint}: CodexProvider): TomlTable {
    return {name: "Local Responses", base_url: endpoint, env_key: codexKeyVariable, wire_api: "responses"};
}

/** The top-level keys as TOML lines (what "Show the provider block" lists before the table). */
export function codexTopLevelKeys(provider: CodexProvider): string[] {
    return stringify(codexTopLevel(provider), writeOptions).trim().split("\n");
}

/** The `[model_providers.local-responses]` block for this endpoint, as TOML. */
export function codexProviderBlock(provider: CodexProvider): string {
    return stringify({model_providers: {[codexProviderId]: codexProviderTable(provider)}}, writeOptions).replace(/^\n+/, "");
}

/**
 * A merge's outcome: the new text (`changed` false when the file already says all of it, and is then kept byte for
 * byte), or why the file is left as it is (not TOML, not the shape Codex reads, or a value TOML cannot hold).
 */
export type CodexConfigMerge = {ok: true, text: string, changed: boolean} | {ok: false, reason: string};

/**
 * Writes this provider into an existing config.toml (or an empty one), parsed by a TOML library (a line by line edit
 * alone cannot tell a table header from a line of a multi-line string): the provider table is replaced wholesale and
 * the top-level keys set; every other key and table keeps its value. The text is a line edit that keeps the person's
 * comments (`editCodexConfigLines`) when the parser reads it back as exactly that configuration, else the library's
 * own rendering (comments lost; the writer keeps the previous file, `replaceConfigFile`). A file that already says
 * all of it is left byte for byte.
 */
export function mergeCodexConfig(existing: string, provider: CodexProvider): CodexConfigMerge {
    const unwritable = [provider.model, provider.endpoint].find((value) => !isWellFormed(value));
    if (unwritable != null)
        return {ok: false, reason: `${JSON.stringify(unwritable)} holds a lone UTF-16 surrogate, which TOML cannot hold`};
    let config: TomlTable;
    try {
        config = parse(existing, readOptions);
    } catch (error) {
        return {ok: false, reason: `it is not valid TOML (${(error as Error).message.split("\n")[0]})`};
    }
    const providers = config.model_providers ?? {};
    if (!isTable(providers))
        return {ok: false, reason: "its model_providers is not a table"};
    const merged: TomlTable = {
        ...config, ...codexTopLevel(provider), model_providers: {...providers, [codexProviderId]: codexProviderTable(provider)}
    };
    const rendered = stringify(merged, writeOptions).replace(/^\n+/, "");
    if (rendered === stringify(config, writeOptions).replace(/^\n+/, ""))
        return {ok: true, text: existing, changed: false};
    // Read back before it may replace a person's file: it must parse, and give our values exactly.
    const expected = tryParse(rendered);
    if (expected == null || !saysOurs(expected, provider))
        return {ok: false, reason: "the merged file would not read back as written (a TOML library fault)"};
    const edited = editCodexConfigLines(existing, codexTopLevelKeys(provider), codexProviderBlock(provider));
    const editedReads = tryParse(edited);
    return {ok: true, text: editedReads != null && isDeepStrictEqual(editedReads, expected) ? edited : rendered, changed: true};
}

function tryParse(text: string): TomlTable | null {
    try {
        return parse(text, readOptions);
    } catch {
        return null;
    }
}

function saysOurs(config: TomlTable, provider: CodexProvider): boolean {
    const table = (config.model_providers as TomlTable | undefined)?.[codexProviderId] as TomlTable | undefined;
    return config.model === provider.model && table?.base_url === provider.endpoint && table.env_key === codexKeyVariable;
}

/** The shell line a person runs before `codex`, naming the variable but not the key. */
export function codexShellHint(): string {
    return clientKeyShellHint();
}

function isTable(value: unknown): value is TomlTable {
    return typeof value === "object" && value != null && !Array.isArray(value) && !(value instanceof Date);
}

/** False for a string with a lone surrogate: UTF-8, and so TOML, has no encoding for one. */
function isWellFormed(value: string): boolean {
    return !/[\uD800-\uDFFF]/u.test(value);
}
