import {defaultPromptCacheRetention} from "../../responses/pipeline/ResponseAdmission.js";
import type {PromptCacheRetention} from "../../responses/createRequest.js";
import {defaultResponseStoreBounds} from "../../store/ResponseStore.js";
import type {HostConfig} from "../config.js";
import {cliSetting, editorSetting} from "./setting.js";
import {boolean, choice, integer, text} from "./settingKinds.js";

/** Where state lives (the durable store, the prompt cache on disk) and the response store's bounds. */
export const storeSettings = {
    storageKind: cliSetting({
        kind: choice<HostConfig["storage"]["kind"]>(["durable", "memory"]),
        cli: {
            flag: "store", env: "LOCAL_RESPONSES_STORE",
            help: "durable (kept in --data-dir across restarts) or memory (gone with the process) (default durable)"
        },
        apply(config, value) {
            config.storage.kind = value;
        }
    }),
    promptCacheMaxBytes: cliSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "prompt-cache-max-bytes", env: "LOCAL_RESPONSES_PROMPT_CACHE_MAX_BYTES",
            help: "disk budget of evaluated prompts kept in --data-dir to load after a restart instead of evaluating them again, all "
                + "models together (default 2147483648; 0 = off; durable store only)"
        },
        apply(config, value) {
            config.storage.promptCacheMaxBytes = value;
        }
    }),
    promptCacheMinTokens: cliSetting({
        kind: integer({min: 1}),
        cli: {
            flag: "prompt-cache-min-tokens", env: "LOCAL_RESPONSES_PROMPT_CACHE_MIN_TOKENS",
            help: "prompts shorter than this are not saved to the prompt cache (default 1024)"
        },
        apply(config, value) {
            config.storage.promptCacheMinTokens = value;
        }
    }),
    promptCacheTtlSeconds: cliSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "prompt-cache-ttl-secs", env: "LOCAL_RESPONSES_PROMPT_CACHE_TTL_SECS",
            help: "a saved prompt state unused this long is deleted, swept every min(TTL/2, 60 s) (default 86400; 0 = never)"
        },
        apply(config, value) {
            config.storage.promptCacheTtlSeconds = value;
        }
    }),
    promptCacheRetention: editorSetting<PromptCacheRetention>({
        kind: choice(["24h", "in_memory"] as const, {"in-memory": "in_memory"}),
        cli: {
            flag: "prompt-cache-retention", env: "LOCAL_RESPONSES_PROMPT_CACHE_RETENTION",
            help: "what a request naming no prompt_cache_retention gets: 24h saves its prompt to disk to survive a restart "
                + "(default), in_memory only a stored response's"
        },
        editor: {
            key: "promptCache.retention", default: defaultPromptCacheRetention, reaction: "rebuild", restricted: true, order: 43,
            description: "Prompts of requests that name no `prompt_cache_retention`: `24h` saves them to the on-disk prompt "
                + "cache (per key, in the data folder) so an agent's session survives a restart; `in_memory` saves only stored "
                + "responses' prompts."
        },
        apply(config, value) {
            config.promptCacheRetention = value;
        }
    }),
    sharedPromptCache: cliSetting({
        kind: boolean(),
        cli: {
            flag: "shared-prompt-cache", env: "LOCAL_RESPONSES_SHARED_PROMPT_CACHE",
            help: "let all API keys reuse each other's cached prompt prefixes (keys that trust each other; off: each key's are apart)"
        },
        apply(config, value) {
            config.sharedPromptCache = value;
        }
    }),
    statusAllKeys: cliSetting({
        kind: boolean(),
        cli: {
            flag: "status-all-keys", env: "LOCAL_RESPONSES_STATUS_ALL_KEYS",
            help: "show every API key the server-wide traffic on /metrics and /v1/status (off: with several keys, each sees its own)"
        },
        apply(config, value) {
            config.statusAllKeys = value;
        }
    }),
    dataDir: cliSetting({
        kind: text(),
        cli: {
            flag: "data-dir", env: "LOCAL_RESPONSES_DATA_DIR",
            help: "folder of the durable store and the sealing secrets, one process at a time (default $XDG_DATA_HOME/local-responses or "
                + "~/.local/share/local-responses; platform equivalent elsewhere)"
        },
        apply(config, value) {
            config.storage.dataDir = value;
        }
    }),
    storeMaxEntries: editorSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "responses-store-max-entries", env: "LOCAL_RESPONSES_STORE_MAX_ENTRIES",
            help: "stored responses (default 1024; 0 disables storage)"
        },
        editor: {
            key: "store.maxEntries", default: defaultResponseStoreBounds.maxEntries, reaction: "rebuild", restricted: true, order: 40,
            description: "Stored responses kept at most (0 disables storage)."
        },
        apply(config, value) {
            config.store.maxEntries = value;
        }
    }),
    storeMaxBytes: editorSetting({
        kind: integer({min: 0}),
        cli: {flag: "responses-store-max-bytes", env: "LOCAL_RESPONSES_STORE_MAX_BYTES", help: "store byte budget (default 268435456)"},
        editor: {
            key: "store.maxBytes", default: defaultResponseStoreBounds.maxBytes, reaction: "rebuild", restricted: true, order: 41,
            description: "Byte budget of the response store."
        },
        apply(config, value) {
            config.store.maxBytes = value;
        }
    }),
    storeTtlSeconds: editorSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "responses-store-ttl-secs", env: "LOCAL_RESPONSES_STORE_TTL_SECS",
            help: "seconds a stored response lives (default 3600; 0 = no expiry)"
        },
        editor: {
            key: "store.ttlSeconds", default: defaultResponseStoreBounds.ttlSeconds, reaction: "rebuild", restricted: false, order: 42,
            description: "Seconds a stored response lives (0 = no expiry)."
        },
        apply(config, value) {
            config.store.ttlSeconds = value;
        }
    }),
    storeOwnerMaxEntries: cliSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "responses-store-owner-max-entries", env: "LOCAL_RESPONSES_STORE_OWNER_MAX_ENTRIES",
            help: "stored responses per API key, its oldest evicted beyond (default 0 = no quota)"
        },
        apply(config, value) {
            config.store.ownerMaxEntries = value;
        }
    }),
    storeOwnerMaxBytes: cliSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "responses-store-owner-max-bytes", env: "LOCAL_RESPONSES_STORE_OWNER_MAX_BYTES",
            help: "store bytes per API key, its oldest evicted beyond (default 0 = no quota)"
        },
        apply(config, value) {
            config.store.ownerMaxBytes = value;
        }
    })
};
