import os from "node:os";
import path from "node:path";
import type {GpuChoice, SpeculativeKind} from "../../engine/types.js";
import {defaultPromptThreads, defaultThreads} from "../../engine/engineDefaults.js";
import {isKeyCacheType, keyCacheTypes, type KeyCacheType} from "../../engine/keyCacheType.js";
import {defaultConfig, isUpstreamUrl, type HostConfig} from "../../host/config.js";

/** The prefix of every setting this extension contributes (package.json `contributes.configuration`). */
export const settingsSection = "localResponses";

/** The extension's settings, validated, with the defaults package.json declares. */
export type ExtensionSettings = {
    modelPath: string | null,
    modelAlias: string | null,
    autoStart: boolean,
    /** Offer the served model to the editor's chat (`vscode.lm`, VS Code 1.104+): applied without touching the host. */
    chatProviderEnabled: boolean,
    host: string,
    port: number,
    /** Threads for generation; 0 = cores − 1. */
    threads: number,
    /** Threads for prompt evaluation; 0 = every core. */
    promptThreads: number,
    /** 0 = the engine's plan: the model's trained context, at most 32768. */
    contextSize: number,
    /** 0 = the engine's plan: 1 to 4 sequences, as many as a 32768-token cache holds. */
    parallel: number,
    queueLimit: number,
    gpu: GpuChoice,
    /** The KV cache's key type (see KeyCacheType). */
    cacheTypeK: KeyCacheType,
    /** Speculative decoding (see SpeculativeKind); `draft` needs `draftModel`. */
    speculative: SpeculativeKind,
    draftModel: string | null,
    allowedOrigins: string[],
    strictModel: boolean,
    strictTools: boolean,
    storeMaxEntries: number,
    storeMaxBytes: number,
    storeTtlSeconds: number,
    /** Queued + running background jobs; 0 disables background mode. */
    jobsMaxActive: number,
    jobsWorkers: number,
    jobsDeadlineSeconds: number,
    downloadDirectory: string | null,
    /** Extra Download Model… entries (checked by parseCatalog when the list opens). */
    modelCatalog: unknown[],
    /** `upstream`: answer from OpenAI-compatible Chat Completions servers instead of a local model (docs/upstream.md). */
    engine: HostConfig["engine"],
    upstreamUrls: string[],
    /** null: the first model the upstream lists. */
    upstreamModel: string | null,
    upstreamTimeoutSeconds: number
};

/** Each field's setting under the prefix: what readSettings reads, and what messages name. */
export const settingKeys: Record<keyof ExtensionSettings, string> = {
    modelPath: "model.path",
    modelAlias: "model.alias",
    autoStart: "autoStart",
    chatProviderEnabled: "chatProvider.enabled",
    host: "server.host",
    port: "server.port",
    threads: "threads",
    promptThreads: "promptThreads",
    contextSize: "contextSize",
    parallel: "parallel",
    queueLimit: "queueLimit",
    gpu: "gpu",
    cacheTypeK: "cacheTypeK",
    speculative: "speculative.mode",
    draftModel: "speculative.draftModel",
    allowedOrigins: "server.allowedOrigins",
    strictModel: "strictModel",
    strictTools: "strictTools",
    storeMaxEntries: "store.maxEntries",
    storeMaxBytes: "store.maxBytes",
    storeTtlSeconds: "store.ttlSeconds",
    jobsMaxActive: "jobs.maxActive",
    jobsWorkers: "jobs.workers",
    jobsDeadlineSeconds: "jobs.deadlineSeconds",
    downloadDirectory: "model.downloadDirectory",
    modelCatalog: "model.catalog",
    engine: "engine",
    upstreamUrls: "upstream.urls",
    upstreamModel: "upstream.model",
    upstreamTimeoutSeconds: "upstream.timeoutSeconds"
};

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
    const defaults = defaultConfig();
    const text = (key: string): string | null => {
        const value = get(key);
        if (value == null || value === "")
            return null;
        if (typeof value !== "string") {
            problems.push(`${settingsSection}.${key} must be a string.`);
            return null;
        }
        return value.trim() === "" ? null : value.trim();
    };
    const integer = (key: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
        const value = get(key);
        if (value == null)
            return fallback;
        if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
            problems.push(
                `${settingsSection}.${key} must be an integer from ${min} to ${max} (got ${JSON.stringify(value)}); using ${fallback}.`
            );
            return fallback;
        }
        return value;
    };
    const flag = (key: string, fallback: boolean): boolean => {
        const value = get(key);
        if (value == null)
            return fallback;
        if (typeof value !== "boolean") {
            problems.push(`${settingsSection}.${key} must be true or false; using ${fallback}.`);
            return fallback;
        }
        return value;
    };

    const host = text(settingKeys.host) ?? defaults.host;
    const gpuRaw = get(settingKeys.gpu) ?? "false";
    let gpu: GpuChoice = false;
    if (gpuRaw === "auto" || gpuRaw === "cuda" || gpuRaw === "vulkan" || gpuRaw === "metal")
        gpu = gpuRaw;
    else if (gpuRaw !== "false" && gpuRaw !== false)
        problems.push(`${settingsSection}.gpu must be auto, false, cuda, vulkan or metal (got ${JSON.stringify(gpuRaw)}); using false.`);

    const keysRaw = get(settingKeys.cacheTypeK) ?? defaults.cacheTypeK;
    let cacheTypeK = defaults.cacheTypeK;
    if (isKeyCacheType(keysRaw))
        cacheTypeK = keysRaw;
    else
        problems.push(
            `${settingsSection}.cacheTypeK must be ${keyCacheTypes.join(" or ")} (got ${JSON.stringify(keysRaw)}); `
                + `using ${defaults.cacheTypeK}.`
        );

    const draftModel = text(settingKeys.draftModel);
    const speculativeRaw = get(settingKeys.speculative) ?? "off";
    let speculative: SpeculativeKind = "off";
    if (speculativeRaw === "lookup" || (speculativeRaw === "draft" && draftModel != null))
        speculative = speculativeRaw;
    else if (speculativeRaw === "draft")
        problems.push(
            `${settingsSection}.speculative.mode is draft but ${settingsSection}.speculative.draftModel names no model; using off.`
        );
    else if (speculativeRaw !== "off")
        problems.push(
            `${settingsSection}.speculative.mode must be off, lookup or draft (got ${JSON.stringify(speculativeRaw)}); using off.`
        );

    const originsRaw = get(settingKeys.allowedOrigins) ?? [];
    let allowedOrigins: string[] = [];
    if (Array.isArray(originsRaw) && originsRaw.every((origin) => typeof origin === "string"))
        allowedOrigins = originsRaw.map((origin) => origin.trim()).filter(Boolean);
    else
        problems.push(`${settingsSection}.server.allowedOrigins must be a list of origins.`);

    const catalogRaw = get(settingKeys.modelCatalog) ?? [];
    if (!Array.isArray(catalogRaw))
        problems.push(`${settingsSection}.model.catalog must be a list of {label, uri} entries.`);

    const {engine, upstreamUrls} = readEngine(get, problems);

    return {
        settings: {
            modelPath: text(settingKeys.modelPath),
            modelAlias: text(settingKeys.modelAlias),
            autoStart: flag(settingKeys.autoStart, true),
            chatProviderEnabled: flag(settingKeys.chatProviderEnabled, true),
            host,
            port: integer(settingKeys.port, defaults.port, 0, 65535),
            threads: integer(settingKeys.threads, 0, 0, 1024),
            promptThreads: integer(settingKeys.promptThreads, 0, 0, 1024),
            contextSize: integer(settingKeys.contextSize, 0, 0, 1 << 20),
            parallel: integer(settingKeys.parallel, 0, 0, 64),
            queueLimit: integer(settingKeys.queueLimit, defaults.queueLimit, 0, 100_000),
            gpu,
            cacheTypeK,
            speculative,
            draftModel,
            allowedOrigins,
            strictModel: flag(settingKeys.strictModel, false),
            strictTools: flag(settingKeys.strictTools, false),
            storeMaxEntries: integer(settingKeys.storeMaxEntries, defaults.store.maxEntries, 0),
            storeMaxBytes: integer(settingKeys.storeMaxBytes, defaults.store.maxBytes, 0),
            storeTtlSeconds: integer(settingKeys.storeTtlSeconds, defaults.store.ttlSeconds, 0),
            jobsMaxActive: integer(settingKeys.jobsMaxActive, defaults.background.maxJobs, 0),
            jobsWorkers: integer(settingKeys.jobsWorkers, defaults.background.workers, 1, 64),
            jobsDeadlineSeconds: integer(settingKeys.jobsDeadlineSeconds, defaults.background.deadlineSeconds, 1),
            downloadDirectory: text(settingKeys.downloadDirectory),
            modelCatalog: Array.isArray(catalogRaw) ? catalogRaw : [],
            engine,
            upstreamUrls,
            upstreamModel: text(settingKeys.upstreamModel),
            upstreamTimeoutSeconds: integer(settingKeys.upstreamTimeoutSeconds, defaults.upstream.timeoutSeconds, 1)
        },
        problems
    };
}

/** The engine and its upstream URLs; `upstream` without one usable URL falls back to `local`, said in `problems`. */
function readEngine(get: SettingReader, problems: string[]): {engine: HostConfig["engine"], upstreamUrls: string[]} {
    const engineRaw = get(settingKeys.engine) ?? "local";
    let engine: HostConfig["engine"] = "local";
    if (engineRaw === "upstream")
        engine = "upstream";
    else if (engineRaw !== "local")
        problems.push(`${settingsSection}.engine must be local or upstream (got ${JSON.stringify(engineRaw)}); using local.`);

    const urlsRaw = get(settingKeys.upstreamUrls) ?? [];
    let upstreamUrls: string[] = [];
    if (Array.isArray(urlsRaw) && urlsRaw.every((url) => typeof url === "string")) {
        const listed = urlsRaw.map((url) => url.trim()).filter(Boolean);
        upstreamUrls = listed.filter(isUpstreamUrl);
        for (const url of listed.filter((candidate) => !isUpstreamUrl(candidate)))
            problems.push(`${settingsSection}.${settingKeys.upstreamUrls} must hold http(s) URLs (got ${JSON.stringify(url)}); ignored.`);
    } else
        problems.push(`${settingsSection}.${settingKeys.upstreamUrls} must be a list of http(s) URLs.`);

    if (engine === "upstream" && upstreamUrls.length === 0) {
        problems.push(
            `${settingsSection}.engine is upstream but ${settingsSection}.${settingKeys.upstreamUrls} lists no http(s) URL; using local.`
        );
        engine = "local";
    }
    return {engine, upstreamUrls};
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

/** The host configuration these settings describe; the API keys come from SecretStorage, never from settings. */
/** The context per sequence and the sequences the settings ask for; null (a setting at 0): the engine's plan. */
export function contextSettings(settings: ExtensionSettings): {contextSize: number | null, parallel: number | null} {
    return {
        contextSize: settings.contextSize === 0 ? null : settings.contextSize,
        parallel: settings.parallel === 0 ? null : settings.parallel
    };
}

export function toHostConfig(settings: ExtensionSettings, apiKey: string, modelPath: string | null,
    upstreamApiKey: string | null = null): HostConfig {
    const config = defaultConfig();
    return {
        ...config,
        engine: settings.engine,
        upstream: {
            ...config.upstream, urls: settings.upstreamUrls, apiKey: upstreamApiKey, model: settings.upstreamModel,
            timeoutSeconds: settings.upstreamTimeoutSeconds
        },
        modelPath,
        modelAlias: settings.modelAlias,
        host: settings.host,
        port: settings.port,
        apiKeys: [apiKey],
        threads: settings.threads === 0 ? defaultThreads() : settings.threads,
        promptThreads: settings.promptThreads === 0 ? defaultPromptThreads() : settings.promptThreads,
        ...contextSettings(settings),
        queueLimit: settings.queueLimit,
        gpu: settings.gpu,
        cacheTypeK: settings.cacheTypeK,
        speculative: settings.speculative,
        draftModelPath: settings.speculative === "draft" ? settings.draftModel : null,
        strictModel: settings.strictModel,
        strictTools: settings.strictTools,
        allowedOrigins: settings.allowedOrigins,
        store: {
            ...config.store, maxEntries: settings.storeMaxEntries, maxBytes: settings.storeMaxBytes, ttlSeconds: settings.storeTtlSeconds
        },
        background: {
            ...config.background, maxJobs: settings.jobsMaxActive, workers: settings.jobsWorkers,
            deadlineSeconds: settings.jobsDeadlineSeconds
        }
    };
}

/**
 * What a settings change requires, least disruptive first:
 * - `none`: nothing running depends on it (autoStart, download folder; the chat provider follows its setting itself);
 * - `loadModel`: another model file;
 * - `restartServer`: a new listen address;
 * - `rebuild`: engine, store or request-handling options fixed when the core is created: a new core,
 *   with the model reloaded and the server restarted if they were running.
 */
export type SettingsChangePlan = {action: "none" | "loadModel" | "restartServer" | "rebuild", changed: (keyof ExtensionSettings)[]};

const rebuildKeys: (keyof ExtensionSettings)[] = [
    "modelAlias", "threads", "promptThreads", "contextSize", "parallel", "queueLimit", "gpu", "cacheTypeK", "speculative", "draftModel",
    "allowedOrigins", "strictModel", "strictTools",
    "storeMaxEntries", "storeMaxBytes", "storeTtlSeconds", "jobsMaxActive", "jobsWorkers", "jobsDeadlineSeconds",
    "engine", "upstreamUrls", "upstreamModel", "upstreamTimeoutSeconds"
];

export function planSettingsChange(before: ExtensionSettings, after: ExtensionSettings): SettingsChangePlan {
    const changed = (Object.keys(after) as (keyof ExtensionSettings)[])
        .filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
    if (changed.some((key) => rebuildKeys.includes(key)))
        return {action: "rebuild", changed};
    if (changed.includes("host") || changed.includes("port"))
        return {action: changed.includes("modelPath") ? "rebuild" : "restartServer", changed};
    if (changed.includes("modelPath"))
        return {action: "loadModel", changed};
    return {action: "none", changed};
}
