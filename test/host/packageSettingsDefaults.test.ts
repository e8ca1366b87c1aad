import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {describe, it} from "node:test";
import {repoRoot} from "../helpers/paths.js";
import {defaultQueueLimit, defaultThreads} from "../../src/engine/engineDefaults.js";
import {defaultUpstreamHealthIntervalMs, defaultUpstreamTimeoutSeconds} from "../../src/engine/upstream/UpstreamEngine.js";
import {defaultChatFormatChoice} from "../../src/engine/llama/families/chatFormatChoice.js";
import {defaultConfig} from "../../src/host/config.js";
import {defaultBackgroundJobLimits} from "../../src/responses/background/BackgroundJobs.js";
import {defaultSummaryMaxTokens} from "../../src/responses/compaction/Compactor.js";
import {defaultJobEventLogLimits} from "../../src/responses/background/JobEventLog.js";
import {defaultReasoningEchoMaxBytes} from "../../src/responses/reasoning/ReasoningReplay.js";
import {defaultStreamReaderLimits} from "../../src/server/StreamReaderSlots.js";
import {defaultConversationStoreBounds} from "../../src/store/ConversationStore.js";
import {defaultResponseStoreBounds} from "../../src/store/ResponseStore.js";
import {defaultOwnerQuotas} from "../../src/store/storeBounds.js";
import {readSettings, settingsSection} from "../../src/vscode/settings/extensionSettings.js";

type Manifest = {contributes: {configuration: {properties: Record<string, {default?: unknown}>}}};
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as Manifest;

const config = defaultConfig();
/** The editor-only settings (no server option mirrors them): their fallbacks when unset, declared in extensionSettings.ts. */
const editorOnly = readSettings(() => undefined).settings;

/**
 * Each setting of package.json's `contributes.configuration` → the declared default it mirrors, spelled the way
 * the setting spells it. A default a class applies comes from the constant beside that class's options; a default
 * only the host configuration knows comes from `defaultConfig()`; "" and 0 stand for "unset" where the setting
 * documents it so (no model, the upstream's first model, cores − 1, the engine's context plan).
 */
const mirrors: Record<string, unknown> = {
    "model.path": "",
    "model.alias": "",
    "model.downloadDirectory": "",
    // The model library's settings (the quoted keys below are editor keys, not model files).
    [["models", "directory"].join(".")]: "",
    [["models", "maxLoaded"].join(".")]: config.library.maxLoaded,
    [["models", "idleUnloadSeconds"].join(".")]: 0,
    [["models", "isolation"].join(".")]: config.library.isolation,
    "model.catalog": editorOnly.modelCatalog,
    "model.chatWrapper": config.chatFormat.wrapper,
    "model.chatTemplate": "",
    "autoStart": editorOnly.autoStart,
    "chatProvider.enabled": editorOnly.chatProviderEnabled,
    // Code completion: read by the editor's provider alone (src/vscode/completions/), declared in completionSettings.ts.
    "completions.enabled": editorOnly.completionsEnabled,
    "completions.model": "",
    "completions.exclude": editorOnly.completionsExclude,
    "completions.debounceMs": editorOnly.completionsDebounceMs,
    "completions.maxTokens": editorOnly.completionsMaxTokens,
    "completions.timeLimitMs": editorOnly.completionsTimeLimitMs,
    "completions.prefixLines": editorOnly.completionsPrefixLines,
    "completions.suffixLines": editorOnly.completionsSuffixLines,
    "completions.maxFileKiB": editorOnly.completionsMaxFileKiB,
    "server.host": config.host,
    "server.port": config.port,
    "server.allowedOrigins": config.allowedOrigins,
    "threads": 0,
    "promptThreads": 0,
    "contextSize": 0,
    "parallel": 0,
    "queueLimit": defaultQueueLimit,
    "gpu": String(config.gpu),
    "cacheTypeK": config.cacheTypeK,
    "speculative.mode": config.speculative,
    "speculative.draftModel": "",
    "strictModel": config.strictModel,
    "strictTools": config.strictTools,
    "store.maxEntries": defaultResponseStoreBounds.maxEntries,
    "store.maxBytes": defaultResponseStoreBounds.maxBytes,
    "store.ttlSeconds": defaultResponseStoreBounds.ttlSeconds,
    "promptCache.retention": config.promptCacheRetention,
    "jobs.maxActive": defaultBackgroundJobLimits.maxActive,
    "jobs.workers": defaultBackgroundJobLimits.workers,
    "jobs.deadlineSeconds": defaultBackgroundJobLimits.deadlineSeconds,
    "engine": config.engine,
    "upstream.urls": config.upstream.urls,
    "upstream.model": "",
    "upstream.timeoutSeconds": defaultUpstreamTimeoutSeconds
};

describe("defaults are declared once", () => {
    it("every package.json setting's default is the constant it mirrors", () => {
        const properties = manifest.contributes.configuration.properties;
        const prefix = `${settingsSection}.`;
        assert.deepEqual(Object.keys(mirrors).map((key) => prefix + key).sort(), Object.keys(properties).sort(),
            "each contributed setting is mapped to the default it mirrors (a new setting needs its entry here)");
        for (const [key, expected] of Object.entries(mirrors))
            assert.deepEqual(properties[prefix + key]!.default, expected,
                `${prefix}${key}: package.json says ${JSON.stringify(properties[prefix + key]!.default)}, the code's default `
                    + `is ${JSON.stringify(expected)}`);
    });

    it("the host configuration takes each default a class applies from the constant beside that class's options", () => {
        assert.equal(config.threads, defaultThreads());
        assert.deepEqual([config.parallel, config.queueLimit], [null, defaultQueueLimit], "parallel null: the engine's plan (planContext)");
        assert.deepEqual([config.upstream.timeoutSeconds, config.upstream.healthIntervalMs],
            [defaultUpstreamTimeoutSeconds, defaultUpstreamHealthIntervalMs]);
        assert.equal(config.reasoningEchoMaxBytes, defaultReasoningEchoMaxBytes);
        assert.deepEqual(config.store, {...defaultResponseStoreBounds, ...defaultOwnerQuotas});
        assert.deepEqual(config.conversations, {...defaultConversationStoreBounds, ...defaultOwnerQuotas});
        const {background} = config;
        assert.deepEqual({
            maxActive: background.maxJobs, maxActivePerOwner: background.maxJobsPerKey, workers: background.workers,
            deadlineSeconds: background.deadlineSeconds, retentionSeconds: background.retentionSeconds,
            maxRetained: background.retainedJobs, maxInputBytes: background.inputMaxBytes
        }, defaultBackgroundJobLimits);
        assert.deepEqual({maxEvents: background.eventMaxCount, maxBytes: background.eventMaxBytes}, defaultJobEventLogLimits);
        assert.deepEqual({maxReaders: background.streamReaders, maxReadersPerOwner: background.streamReadersPerKey},
            defaultStreamReaderLimits);
        assert.equal(config.compaction.summaryMaxTokens, defaultSummaryMaxTokens);
        assert.equal(config.contextSize, null, "null: the engine's plan (planContext)");
        assert.deepEqual(config.chatFormat, defaultChatFormatChoice, "detection, no template of the person's");
    });
});
