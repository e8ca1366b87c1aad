import {parseArgs} from "node:util";
import {
    defaultPromptCacheMaxBytes, defaultPromptCacheMinTokens, defaultPromptCacheTtlSeconds
} from "../engine/llama/runtime/PromptStateCache.js";
import {defaultConfig, type HostConfig} from "./config.js";
import {defaultDataDir} from "./dataFolder.js";
import type {Setting} from "./settings/setting.js";
import type {CliRaw} from "./settings/settingKinds.js";
import {speculativeConflict, upstreamBesideModels, upstreamWithoutUrl, wrapperAndTemplateConflict} from "./settings/settingRules.js";
import {cliSettings, settingsTable} from "./settings/settingsTable.js";

/** Each flag as node's parseArgs, `--help` and tests see it, derived from the settings table (src/host/settings/). */
export const cliFlags: Record<string, {type: "string" | "boolean", multiple: boolean, env: string, help: string}> = Object.fromEntries(
    cliSettings.map(({cli, kind}) => [cli.flag, {...kind.cli, env: cli.env ?? "", help: cli.help}])
);
// `--model` is repeatable on the command line (a model library); the editor's setting is one file.
cliFlags.model = {
    ...cliFlags.model!, multiple: true, help: `${cliFlags.model!.help}; repeat it to serve several (the first is the default)`
};

export type CliFlag = keyof typeof cliFlags;

export type CliOptions = {config: HostConfig, apiKeyFile: string | null, upstreamApiKeyFile: string | null, noAuth: boolean, help: boolean};

export class CliUsageError extends Error {}

export function parseCliOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
    const {values} = parseArgs({
        args: argv,
        options: Object.fromEntries(Object.entries(cliFlags).map(([name, {type, multiple}]) => [name, {type, multiple}])),
        allowPositionals: false,
        strict: true
    });
    const models = values.model;
    const extraModelPaths = Array.isArray(models) ? models.slice(1).map(String) : [];
    if (Array.isArray(models))
        values.model = models[0] == null ? undefined : String(models[0]);
    const read = <V>(setting: Setting<V>): V | undefined => readFlag(setting, values, env);

    const config = cliDefaultConfig();
    for (const setting of cliSettings) {
        const value = read(setting);
        if (value !== undefined)
            setting.apply?.(config, value);
    }
    config.library.extraModelPaths = extraModelPaths;
    config.library.withUpstream = upstreamBesideModels(config);
    if (upstreamWithoutUrl(config.engine, config.upstream.urls))
        throw new CliUsageError("--engine upstream needs at least one --upstream URL.");
    // A draft model alone implies draft mode.
    if (read(settingsTable.speculative) === undefined && config.draftModelPath != null)
        config.speculative = "draft";
    const conflict = speculativeConflict(config.speculative, config.draftModelPath);
    if (conflict === "draftWithoutModel")
        throw new CliUsageError("--speculative draft needs --draft-model FILE (a small model with the same vocabulary).");
    if (conflict === "modelWithoutDraft")
        throw new CliUsageError(`--draft-model is only used with --speculative draft (got --speculative ${config.speculative}).`);
    if (wrapperAndTemplateConflict(config.chatFormat))
        throw new CliUsageError(`--chat-wrapper ${config.chatFormat.wrapper} renders prompts its own way and would ignore --chat-template: `
            + "give one of them (with --chat-template, --chat-wrapper takes a family id only).");
    return {
        config,
        apiKeyFile: read(settingsTable.apiKeyFile) ?? null,
        upstreamApiKeyFile: read(settingsTable.upstreamApiKeyFile) ?? null,
        noAuth: read(settingsTable.noAuth) === true,
        help: read(settingsTable.help) === true
    };
}

/** The host configuration before any flag: the CLI keeps its state durable, in the platform's data folder. */
function cliDefaultConfig(): HostConfig {
    const config = defaultConfig();
    config.storage = {
        kind: "durable", dataDir: defaultDataDir(), promptCacheMaxBytes: defaultPromptCacheMaxBytes,
        promptCacheMinTokens: defaultPromptCacheMinTokens, promptCacheTtlSeconds: defaultPromptCacheTtlSeconds
    };
    return config;
}

/** A flag's value, else its environment variable's (blank is unset), checked by its kind; undefined when neither is set. */
function readFlag<V>(setting: Setting<V>, flags: Record<string, CliRaw | undefined>, env: NodeJS.ProcessEnv): V | undefined {
    const {cli, kind} = setting;
    if (cli == null)
        return undefined;
    const envValue = cli.env == null ? undefined : env[cli.env];
    const raw = flags[cli.flag] ?? (envValue === "" ? undefined : envValue);
    if (raw == null)
        return undefined;
    const reading = kind.fromCli(raw);
    if ("expected" in reading)
        throw new CliUsageError(`--${cli.flag} must be ${reading.expected} (got '${String(raw)}').`);
    const rejected = reading.rejected?.[0];
    if (rejected != null)
        throw new CliUsageError(`--${cli.flag} must be ${kind.item?.one ?? "something else"} (got '${rejected}').`);
    return reading.value;
}

export function cliHelp(): string {
    const width = Math.max(...Object.keys(cliFlags).map((name) => name.length));
    const lines = Object.entries(cliFlags).map(([name, flag]) => {
        const env = flag.env === "" ? "" : ` [${flag.env}]`;
        return `  --${name.padEnd(width)}  ${flag.help}${env}`;
    });
    return "Usage: local-responses serve [--model FILE] [options]\n"
        + "       local-responses serve --engine upstream --upstream URL [options]\n"
        + "       local-responses serve (--model FILE | --models-dir DIR) --upstream URL [options]   (both, routed by model name)\n"
        + "       local-responses gpu install cuda|vulkan | gpu remove [cuda|vulkan] | gpu status   (GPU builds: gpu --help)\n\n"
        + "Serves the OpenAI Responses API on 127.0.0.1 from a local GGUF model, or in front of OpenAI-compatible "
        + "Chat Completions servers. Without --model it serves the bundled demo model (models/stories260K.gguf, a toy).\n\n"
        + `Options (environment variable in brackets):\n${lines.join("\n")}\n`;
}
