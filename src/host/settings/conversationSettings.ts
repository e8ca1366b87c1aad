import {cliSetting} from "./setting.js";
import {integer, text} from "./settingKinds.js";

/** The conversation store's bounds and compaction: CLI flags only. */
export const conversationSettings = {
    conversationMaxEntries: cliSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "conversation-store-max-entries", env: "LOCAL_RESPONSES_CONVERSATION_STORE_MAX_ENTRIES",
            help: "stored conversations (default 256; 0 disables conversations)"
        },
        apply(config, value) {
            config.conversations.maxEntries = value;
        }
    }),
    conversationMaxBytes: cliSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "conversation-store-max-bytes", env: "LOCAL_RESPONSES_CONVERSATION_STORE_MAX_BYTES",
            help: "conversation byte budget (default 67108864)"
        },
        apply(config, value) {
            config.conversations.maxBytes = value;
        }
    }),
    conversationTtlSeconds: cliSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "conversation-store-ttl-secs", env: "LOCAL_RESPONSES_CONVERSATION_STORE_TTL_SECS",
            help: "seconds an unused conversation lives (default 3600; 0 = no expiry)"
        },
        apply(config, value) {
            config.conversations.ttlSeconds = value;
        }
    }),
    conversationOwnerMaxEntries: cliSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "conversation-store-owner-max-entries", env: "LOCAL_RESPONSES_CONVERSATION_STORE_OWNER_MAX_ENTRIES",
            help: "conversations per API key (default 0 = no quota)"
        },
        apply(config, value) {
            config.conversations.ownerMaxEntries = value;
        }
    }),
    conversationOwnerMaxBytes: cliSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "conversation-store-owner-max-bytes", env: "LOCAL_RESPONSES_CONVERSATION_STORE_OWNER_MAX_BYTES",
            help: "conversation bytes per API key (default 0 = no quota)"
        },
        apply(config, value) {
            config.conversations.ownerMaxBytes = value;
        }
    }),
    compactionKeepTokens: cliSetting({
        kind: integer({min: 1}),
        cli: {
            flag: "compaction-keep-tokens", env: "LOCAL_RESPONSES_COMPACTION_KEEP_TOKENS",
            help: "newest tokens kept verbatim by compaction (default context/16, at most 8192)"
        },
        apply(config, value) {
            config.compaction.keepTokens = value;
        }
    }),
    compactionSummaryMaxTokens: cliSetting({
        kind: integer({min: 1}),
        cli: {
            flag: "compaction-summary-max-tokens", env: "LOCAL_RESPONSES_COMPACTION_SUMMARY_MAX_TOKENS",
            help: "compaction summary length when not given (default 1024)"
        },
        apply(config, value) {
            config.compaction.summaryMaxTokens = value;
        }
    }),
    compactionSecret: cliSetting({
        kind: text(),
        cli: {
            flag: "compaction-secret", env: "LOCAL_RESPONSES_COMPACTION_SECRET",
            help: "HMAC secret for compaction items (default: kept in --data-dir; random per process with --store memory; "
                + "integrity only, not encryption)"
        },
        apply(config, value) {
            config.compaction.secret = value;
        }
    })
};
