import path from "node:path";
import {isDeepStrictEqual} from "node:util";
import {applyEdits, modify, type JSONPath} from "jsonc-parser";
import {claudeContextEnv, contextWindowVariables} from "./claudeContextEnv.js";
import {claudeModelEnv} from "./claudeModelEnv.js";
import {clientKeyShellHint, clientKeyVariable} from "../clientConfig/clientKey.js";

export type ClaudeProvider = {
    /** The server's endpoint as the host reports it (`http://127.0.0.1:PORT/v1`). */
    endpoint: string,
    /** The model Claude Code sends its main requests to (with one model, its small, fast requests too). */
    model: string,
    /** The main model's context per request, when known (a library model taking its own is unknown until loaded). */
    contextWindow?: number,
    /** With a model library of several: the model for Claude Code's small, fast requests (titles, summaries). */
    library?: {smallModel: string}
};

/**
 * What Configure Claude Code… sets at the top level and in `env`, and the `env` keys it takes out (`unset`: ones an
 * earlier block wrote that would undo this one); everything else in the file is the person's.
 */
export type ClaudeSettingsBlock = {env: Record<string, string>, unset: string[], apiKeyHelper: string};

/**
 * The key comes from a command Claude Code runs (its value is sent as `x-api-key` and as a bearer token, both of
 * which the server accepts), which prints the variable the person exports: the key never lands in settings.json.
 */
export const claudeApiKeyHelper = `printenv ${clientKeyVariable}`;

/**
 * Keys that Claude Code prefers to `apiKeyHelper` (its order: `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_API_KEY`, then the
 * helper): left in `env`, they would send another provider's key here and get 401. They are the person's own, so
 * the merge takes them out only when asked to (`removeOverridingKeys`, after the person said yes).
 */
export const overridingKeyVariables = ["ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY"] as const;

/** The settings file Claude Code reads: `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`. */
export function claudeSettingsFile(env: NodeJS.ProcessEnv, home: string): string {
    const dir = env.CLAUDE_CONFIG_DIR != null && env.CLAUDE_CONFIG_DIR !== "" ? env.CLAUDE_CONFIG_DIR : path.join(home, ".claude");
    return path.join(dir, "settings.json");
}

/**
 * The server's origin: Claude Code appends `/v1/messages` to `ANTHROPIC_BASE_URL` itself, so the endpoint's `/v1`
 * would make it post to `/v1/v1/messages`.
 */
export function claudeBaseUrl(endpoint: string): string {
    return endpoint.replace(/\/+$/, "").replace(/\/v1$/, "");
}

/** The switch that turns all of Claude Code's non-essential traffic off, session titles included. */
const nonessentialTrafficSwitch = "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC";

/** Why a key of `unset` is taken out, as the settings preview says it. */
function unsetReason(key: string): string {
    return key === nonessentialTrafficSwitch ? "it would stop the titles the small model writes"
        : "an earlier block's window, not this model's, whose context is not known until it loads";
}

/**
 * The block for this endpoint. Every name Claude Code sends is one the server serves (`claudeModelEnv`): with one model
 * its id goes into each, so a server with `--strict-model` answers the background requests too. Telemetry and error
 * reports are off, as they would only fail against a local server. With one model all non-essential traffic is off
 * (one switch); with a small model of a library the reports are turned off one by one instead, since that switch also
 * stops the session titles, the one request Claude Code 2.1.328 sends the small model (docs/models.md, measured in
 * test/model/clients/claudeCodeSmallModel.test.ts): the switch is then taken out of a file that has it (`unset`).
 * The served context goes in too (`claudeContextEnv`), so Claude Code compacts before the server must refuse; a
 * model whose context is not known yet takes an earlier block's window out instead.
 */
export function claudeSettingsBlock({endpoint, model, contextWindow, library}: ClaudeProvider): ClaudeSettingsBlock {
    const models = claudeModelEnv({main: model, small: library?.smallModel ?? model, library: library != null});
    const traffic: Record<string, string> = library == null ? {[nonessentialTrafficSwitch]: "1"}
        : {DISABLE_TELEMETRY: "1", DISABLE_ERROR_REPORTING: "1", DISABLE_BUG_COMMAND: "1"};
    return {
        env: {ANTHROPIC_BASE_URL: claudeBaseUrl(endpoint), ...models, ...traffic, ...claudeContextEnv(contextWindow)},
        unset: [...(library == null ? [] : [nonessentialTrafficSwitch]), ...(contextWindow == null ? contextWindowVariables : [])],
        apiKeyHelper: claudeApiKeyHelper
    };
}

/**
 * A merge's outcome: the new file text (`changed` false when the file already says all of it), the `env` keys that
 * override the helper and were taken out (`removed`) or left in (`kept`), or why the file is left as it is (not JSON,
 * or not the shape Claude Code reads): it is never overwritten then.
 */
export type ClaudeSettingsMerge =
    | {ok: true, text: string, changed: boolean, removed: string[], kept: string[]}
    | {ok: false, reason: string};

/**
 * Writes the block into an existing settings.json (or an empty one): our `env` keys and `apiKeyHelper` are set, the
 * keys that would override the helper are taken out of `env` only with `removeOverridingKeys`, and every other key
 * keeps its value and its place. The file is edited in place (jsonc-parser's edits), so its indentation, key order
 * and line ends stay the person's; a new file gets 2-space indents, as Claude Code writes it. Merging again changes
 * nothing.
 */
export function mergeClaudeSettings(existing: string, provider: ClaudeProvider, removeOverridingKeys = false): ClaudeSettingsMerge {
    const parsed = parseSettings(existing);
    if (!parsed.ok)
        return parsed;
    const {settings, env} = parsed;
    const block = claudeSettingsBlock(provider);
    const present = overridingKeyVariables.filter((key) => Object.hasOwn(env, key));
    const removed = removeOverridingKeys ? present : [];
    const kept = removeOverridingKeys ? [] : present;
    const dropped = [...removed, ...block.unset.filter((key) => Object.hasOwn(env, key))];
    const mergedEnv = Object.fromEntries(Object.entries(env).filter(([key]) => !dropped.includes(key)));
    const merged = {...settings, env: {...mergedEnv, ...block.env}, apiKeyHelper: block.apiKeyHelper};
    if (isDeepStrictEqual(merged, settings))
        return {ok: true, text: existing, changed: false, removed, kept};
    const edits: [JSONPath, unknown][] = [
        ...dropped.map((key): [JSONPath, unknown] => [["env", key], undefined]),
        ...Object.entries(block.env).map(([key, value]): [JSONPath, unknown] => [["env", key], value]),
        [["apiKeyHelper"], block.apiKeyHelper]
    ];
    return {ok: true, text: editInPlace(existing, edits, merged), changed: true, removed, kept};
}

/** The settings file's object and its `env`, or why it is not one Claude Code reads. */
type ParsedSettings = {ok: true, settings: Record<string, unknown>, env: Record<string, unknown>} | {ok: false, reason: string};

function parseSettings(text: string): ParsedSettings {
    let settings: unknown = {};
    if (text.trim() !== "") {
        try {
            settings = JSON.parse(text);
        } catch (error) {
            return {ok: false, reason: `it is not valid JSON (${(error as Error).message})`};
        }
    }
    if (!isObject(settings))
        return {ok: false, reason: "it holds JSON that is not an object"};
    const env = settings.env ?? {};
    if (!isObject(env))
        return {ok: false, reason: "its \"env\" is not an object"};
    return {ok: true, settings, env};
}

/**
 * Applies the edits to the text as it is, in the file's own indentation and line ends. When the result does not
 * read back as the merged object (a key written twice, which JSON.parse reads as its last), the object is written
 * anew instead: right content first, layout second.
 */
function editInPlace(text: string, edits: [JSONPath, unknown][], merged: Record<string, unknown>): string {
    const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
    const eol = text.includes("\r\n") ? "\r\n" : "\n";
    if (text.trim() !== "") {
        const formattingOptions = {insertSpaces: !indent.startsWith("\t"), tabSize: indent.startsWith("\t") ? 1 : indent.length, eol};
        let edited = text;
        for (const [path, value] of edits)
            edited = applyEdits(edited, modify(edited, path, value, {formattingOptions}));
        if (isDeepStrictEqual(JSON.parse(edited), merged))
            return edited;
    }
    return `${JSON.stringify(merged, null, indent).replace(/\n/g, eol)}${eol}`;
}

/**
 * What "Show the settings block" opens (JSON with comments): the keys to merge by hand, then the shell lines that
 * give the helper its key and keep an exported key from overriding it.
 */
export function claudeSettingsPreview(file: string, provider: ClaudeProvider): string {
    const {env, unset, apiKeyHelper} = claudeSettingsBlock(provider);
    return [
        `// Merge into ${file}:`,
        JSON.stringify({env, apiKeyHelper}, null, 2),
        ...unset.map((key) => `// and take ${key} out of "env" (${unsetReason(key)})`),
        "// Then, in the shell that runs claude:",
        `// ${clientKeyShellHint()}`,
        `// unset ${overridingKeyVariables.join(" ")}   (Claude Code would send these instead of the helper's key)`,
        ""
    ].join("\n");
}

function isObject(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value != null && !Array.isArray(value);
}
