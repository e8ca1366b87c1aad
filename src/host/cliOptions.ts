import {parseArgs} from "node:util";
import type {GpuChoice, SpeculativeKind} from "../engine/types.js";
import {isKeyCacheType, keyCacheTypes, type KeyCacheType} from "../engine/keyCacheType.js";
import {defaultPromptCacheMaxBytes, defaultPromptCacheMinTokens, defaultPromptCacheTtlSeconds} from "../engine/llama/PromptStateCache.js";
import {defaultConfig, isUpstreamUrl, type HostConfig, type StoreSettings} from "./config.js";
import {defaultDataDir} from "./dataFolder.js";

/** Each flag, its environment variable and its help line: one table so the three never drift apart. */
export const cliFlags = {
    "engine": {
        type: "string", env: "LOCAL_RESPONSES_ENGINE",
        help: "local (a GGUF file, the default) or upstream (OpenAI-compatible Chat Completions servers; docs/upstream.md)"
    },
    "model": {type: "string", env: "LOCAL_RESPONSES_MODEL", help: "GGUF model file to serve (required with --engine local)"},
    "upstream": {
        type: "string", multiple: true, env: "LOCAL_RESPONSES_UPSTREAM",
        help: "base URL of a Chat Completions server for --engine upstream (repeatable; env: comma-separated)"
    },
    "upstream-api-key": {type: "string", env: "LOCAL_RESPONSES_UPSTREAM_API_KEY", help: "bearer key sent to the upstreams (never logged)"},
    "upstream-api-key-file": {
        type: "string", env: "LOCAL_RESPONSES_UPSTREAM_API_KEY_FILE", help: "file holding the upstream key (first line)"
    },
    "upstream-model": {
        type: "string", env: "LOCAL_RESPONSES_UPSTREAM_MODEL", help: "upstream model name (default: the first in the upstream's /v1/models)"
    },
    "upstream-timeout-secs": {
        type: "string", env: "LOCAL_RESPONSES_UPSTREAM_TIMEOUT_SECS",
        help: "seconds an upstream may stay silent before the request fails with 504 (default 600)"
    },
    "model-alias": {type: "string", env: "LOCAL_RESPONSES_MODEL_ALIAS", help: "model name reported to clients (default: file name)"},
    "host": {type: "string", env: "LOCAL_RESPONSES_HOST", help: "address to bind (default 127.0.0.1)"},
    "port": {type: "string", env: "LOCAL_RESPONSES_PORT", help: "port (default 8080; 0 picks a free one)"},
    "api-key": {
        type: "string", multiple: true, env: "LOCAL_RESPONSES_API_KEY", help: "accepted API key (repeatable; env: comma-separated)"
    },
    "api-key-file": {
        type: "string", env: "LOCAL_RESPONSES_API_KEY_FILE",
        help: "0600 file holding the key (or several, one per line), created with a new key if missing (default "
            + "~/.config/local-responses/api-key)"
    },
    "no-auth": {
        type: "boolean", env: "LOCAL_RESPONSES_NO_AUTH",
        help: "serve without an API key (refused off loopback and with --allowed-origins '*'; not recommended)"
    },
    "threads": {type: "string", env: "LOCAL_RESPONSES_THREADS", help: "CPU threads for generation (default cores - 1)"},
    "prompt-threads": {
        type: "string", env: "LOCAL_RESPONSES_PROMPT_THREADS", help: "CPU threads for prompt evaluation (default: every core)"
    },
    "context-size": {
        type: "string", env: "LOCAL_RESPONSES_CONTEXT_SIZE", help: "context tokens per sequence (default: model's, at most 32768)"
    },
    "parallel": {
        type: "string", env: "LOCAL_RESPONSES_PARALLEL", help: "parallel sequences (default: as many as a 32768-token cache holds, 1 to 4)"
    },
    "batch-size": {
        type: "string", env: "LOCAL_RESPONSES_BATCH_SIZE",
        help: "tokens per native evaluation, the largest prompt step (default: 128 on the CPU, where narrower batches evaluate "
            + "prompts faster; 512 on a GPU)"
    },
    "queue-limit": {type: "string", env: "LOCAL_RESPONSES_QUEUE_LIMIT", help: "requests waiting for a sequence before 503 (default 64)"},
    "gpu": {type: "string", env: "LOCAL_RESPONSES_GPU", help: "auto, false, cuda, vulkan or metal (default false)"},
    "stop": {
        type: "string", multiple: true, env: "LOCAL_RESPONSES_STOP",
        help: "text that ends a plain-text answer like an end-of-turn token (repeatable; env: comma-separated)"
    },
    "flash-attention": {
        type: "boolean", env: "LOCAL_RESPONSES_FLASH_ATTENTION",
        help: "enable flash attention (on CPU: cheaper cold prompts, dearer generated tokens)"
    },
    "speculative": {
        type: "string", env: "LOCAL_RESPONSES_SPECULATIVE",
        help: "speculative decoding: off, lookup (predict from the prompt: answers that copy it, as edits do) or draft (a small model, "
            + "--draft-model); answers stay the same (default off)"
    },
    "draft-model": {
        type: "string", env: "LOCAL_RESPONSES_DRAFT_MODEL",
        help: "GGUF draft model for --speculative draft (same vocabulary as --model); implies --speculative draft"
    },
    "cache-type-k": {
        type: "string", env: "LOCAL_RESPONSES_CACHE_TYPE_K",
        help: "KV cache key type: f16 or q8_0 (half the key memory; on CPU cheaper prompts and tokens deep in the context; models whose "
            + "attention heads fill 32-value blocks) (default f16)"
    },
    "busy-poll-below-ms": {
        type: "string", env: "LOCAL_RESPONSES_BUSY_POLL_BELOW_MS",
        help: "keep the event loop polling, not sleeping, while tokens come less than this many ms apart: faster streams of fast models "
            + "for a core while they last (default 2; 0 = never)"
    },
    "strict-model": {type: "boolean", env: "LOCAL_RESPONSES_STRICT_MODEL", help: "require 'model' to name the loaded model"},
    "strict-tools": {
        type: "boolean", env: "LOCAL_RESPONSES_STRICT_TOOLS", help: "refuse hosted tool types with 400 instead of ignoring them"
    },
    "reasoning-secret": {
        type: "string", env: "LOCAL_RESPONSES_REASONING_SECRET",
        help: "HMAC secret for reasoning encrypted_content tokens (default: kept in --data-dir; random per process with "
            + "--store memory; not encryption)"
    },
    "reasoning-echo-max-bytes": {
        type: "string", env: "LOCAL_RESPONSES_REASONING_ECHO_MAX_BYTES",
        help: "reasoning remembered to re-inject when clients drop it (default 16777216; 0 disables)"
    },
    "allowed-origins": {
        type: "string", env: "LOCAL_RESPONSES_ALLOWED_ORIGINS", help: "comma-separated browser origins allowed (CORS); none by default"
    },
    "body-limit": {type: "string", env: "LOCAL_RESPONSES_BODY_LIMIT", help: "largest request body in bytes (default 16777216)"},
    "stream-keepalive-secs": {
        type: "string", env: "LOCAL_RESPONSES_STREAM_KEEPALIVE_SECS",
        help: "seconds of silence before a stream gets a keep-alive (keepalive event or SSE comment, WebSocket "
            + "ping; default 15; 0 disables)"
    },
    "store": {
        type: "string", env: "LOCAL_RESPONSES_STORE",
        help: "durable (kept in --data-dir across restarts) or memory (gone with the process) (default durable)"
    },
    "prompt-cache-max-bytes": {
        type: "string", env: "LOCAL_RESPONSES_PROMPT_CACHE_MAX_BYTES",
        help: "disk budget of evaluated prompts kept in --data-dir to load after a restart instead of evaluating them again (default "
            + "2147483648; 0 = off; durable store only)"
    },
    "prompt-cache-min-tokens": {
        type: "string", env: "LOCAL_RESPONSES_PROMPT_CACHE_MIN_TOKENS",
        help: "prompts shorter than this are not saved to the prompt cache (default 1024)"
    },
    "prompt-cache-ttl-secs": {
        type: "string", env: "LOCAL_RESPONSES_PROMPT_CACHE_TTL_SECS",
        help: "a saved prompt state unused this long is deleted (default 86400; 0 = never)"
    },
    "shared-prompt-cache": {
        type: "boolean", env: "LOCAL_RESPONSES_SHARED_PROMPT_CACHE",
        help: "let all API keys reuse each other's cached prompt prefixes (keys that trust each other; off: each key's are apart)"
    },
    "data-dir": {
        type: "string", env: "LOCAL_RESPONSES_DATA_DIR",
        help: "folder of the durable store and the sealing secrets, one process at a time (default $XDG_DATA_HOME/local-responses or "
            + "~/.local/share/local-responses; platform equivalent elsewhere)"
    },
    "responses-store-max-entries": {
        type: "string", env: "LOCAL_RESPONSES_STORE_MAX_ENTRIES", help: "stored responses (default 1024; 0 disables storage)"
    },
    "responses-store-max-bytes": {type: "string", env: "LOCAL_RESPONSES_STORE_MAX_BYTES", help: "store byte budget (default 268435456)"},
    "responses-store-ttl-secs": {
        type: "string", env: "LOCAL_RESPONSES_STORE_TTL_SECS", help: "seconds a stored response lives (default 3600; 0 = no expiry)"
    },
    "responses-store-owner-max-entries": {
        type: "string", env: "LOCAL_RESPONSES_STORE_OWNER_MAX_ENTRIES",
        help: "stored responses per API key, its oldest evicted beyond (default 0 = no quota)"
    },
    "responses-store-owner-max-bytes": {
        type: "string", env: "LOCAL_RESPONSES_STORE_OWNER_MAX_BYTES",
        help: "store bytes per API key, its oldest evicted beyond (default 0 = no quota)"
    },
    "responses-background-max-jobs": {
        type: "string", env: "LOCAL_RESPONSES_BACKGROUND_MAX_JOBS",
        help: "active background responses, 429 beyond (default 64; 0 disables background mode)"
    },
    "responses-background-max-jobs-per-key": {
        type: "string", env: "LOCAL_RESPONSES_BACKGROUND_MAX_JOBS_PER_KEY",
        help: "active background responses per API key, 429 beyond (default 4)"
    },
    "responses-background-workers": {
        type: "string", env: "LOCAL_RESPONSES_BACKGROUND_WORKERS", help: "background responses generating at once (default 2)"
    },
    "responses-background-deadline-secs": {
        type: "string", env: "LOCAL_RESPONSES_BACKGROUND_DEADLINE_SECS",
        help: "seconds from admission to the end of a job, then failed (default 300)"
    },
    "responses-background-retention-secs": {
        type: "string", env: "LOCAL_RESPONSES_BACKGROUND_RETENTION_SECS",
        help: "seconds a finished job and its events are kept (default 900)"
    },
    "responses-background-retained-jobs": {
        type: "string", env: "LOCAL_RESPONSES_BACKGROUND_RETAINED_JOBS", help: "finished job records kept at most (default 64)"
    },
    "responses-background-input-max-bytes": {
        type: "string", env: "LOCAL_RESPONSES_BACKGROUND_INPUT_MAX_BYTES",
        help: "input snapshot bytes per job, 413 beyond (default 2097152)"
    },
    "responses-background-event-max-count": {
        type: "string", env: "LOCAL_RESPONSES_BACKGROUND_EVENT_MAX_COUNT", help: "stream events retained per job (default 4096)"
    },
    "responses-background-event-max-bytes": {
        type: "string", env: "LOCAL_RESPONSES_BACKGROUND_EVENT_MAX_BYTES", help: "stream event bytes retained per job (default 2097152)"
    },
    "responses-background-stream-readers": {
        type: "string", env: "LOCAL_RESPONSES_BACKGROUND_STREAM_READERS", help: "background stream readers at once, 429 beyond (default 32)"
    },
    "responses-background-stream-readers-per-key": {
        type: "string", env: "LOCAL_RESPONSES_BACKGROUND_STREAM_READERS_PER_KEY", help: "background stream readers per API key (default 8)"
    },
    "responses-background-stream-write-timeout-secs": {
        type: "string", env: "LOCAL_RESPONSES_BACKGROUND_STREAM_WRITE_TIMEOUT_SECS",
        help: "seconds a slow background stream socket may stay unwritable (default 5)"
    },
    "conversation-store-max-entries": {
        type: "string", env: "LOCAL_RESPONSES_CONVERSATION_STORE_MAX_ENTRIES",
        help: "stored conversations (default 256; 0 disables conversations)"
    },
    "conversation-store-max-bytes": {
        type: "string", env: "LOCAL_RESPONSES_CONVERSATION_STORE_MAX_BYTES", help: "conversation byte budget (default 67108864)"
    },
    "conversation-store-ttl-secs": {
        type: "string", env: "LOCAL_RESPONSES_CONVERSATION_STORE_TTL_SECS",
        help: "seconds an unused conversation lives (default 3600; 0 = no expiry)"
    },
    "conversation-store-owner-max-entries": {
        type: "string", env: "LOCAL_RESPONSES_CONVERSATION_STORE_OWNER_MAX_ENTRIES",
        help: "conversations per API key (default 0 = no quota)"
    },
    "conversation-store-owner-max-bytes": {
        type: "string", env: "LOCAL_RESPONSES_CONVERSATION_STORE_OWNER_MAX_BYTES",
        help: "conversation bytes per API key (default 0 = no quota)"
    },
    "compaction-keep-tokens": {
        type: "string", env: "LOCAL_RESPONSES_COMPACTION_KEEP_TOKENS",
        help: "newest tokens kept verbatim by compaction (default context/16, at most 8192)"
    },
    "compaction-summary-max-tokens": {
        type: "string", env: "LOCAL_RESPONSES_COMPACTION_SUMMARY_MAX_TOKENS",
        help: "compaction summary length when not given (default 1024)"
    },
    "compaction-secret": {
        type: "string", env: "LOCAL_RESPONSES_COMPACTION_SECRET",
        help: "HMAC secret for compaction items (default: kept in --data-dir; random per process with --store memory; "
            + "integrity only, not encryption)"
    },
    "help": {type: "boolean", env: "", help: "show this help"}
} as const;

export type CliFlag = keyof typeof cliFlags;

export type CliOptions = {config: HostConfig, apiKeyFile: string | null, upstreamApiKeyFile: string | null, noAuth: boolean, help: boolean};

export class CliUsageError extends Error {}

export function parseCliOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
    const {values} = parseArgs({
        args: argv,
        options: Object.fromEntries(
            Object.entries(cliFlags).map(([name, flag]) => [name, {type: flag.type, multiple: "multiple" in flag ? flag.multiple : false}])
        ),
        allowPositionals: false,
        strict: true
    });

    const read = (name: CliFlag): string | string[] | boolean | undefined => {
        const value = values[name];
        if (value != null)
            return value as string | string[] | boolean;
        const envName = cliFlags[name].env;
        const envValue = envName === "" ? undefined : env[envName];
        if (envValue == null || envValue === "")
            return undefined;
        if (cliFlags[name].type === "boolean")
            return envValue === "1" || envValue.toLowerCase() === "true";
        return "multiple" in cliFlags[name] ? envValue.split(",").map((part) => part.trim()).filter(Boolean) : envValue;
    };
    const integer = (name: CliFlag, min: number): number | undefined => {
        const raw = read(name);
        if (raw == null)
            return undefined;
        const value = Number(raw);
        if (!Number.isInteger(value) || value < min)
            throw new CliUsageError(`--${name} must be an integer ≥ ${min} (got '${String(raw)}').`);
        return value;
    };

    const config = defaultConfig();
    config.engine = parseEngine(read("engine") as string | undefined);
    config.upstream = {
        ...config.upstream,
        urls: ((read("upstream") as string[] | undefined) ?? []).map(checkUpstreamUrl),
        apiKey: (read("upstream-api-key") as string | undefined) ?? null,
        model: (read("upstream-model") as string | undefined) ?? null,
        timeoutSeconds: integer("upstream-timeout-secs", 1) ?? config.upstream.timeoutSeconds
    };
    if (config.engine === "upstream" && config.upstream.urls.length === 0)
        throw new CliUsageError("--engine upstream needs at least one --upstream URL.");
    config.modelPath = (read("model") as string | undefined) ?? null;
    config.modelAlias = (read("model-alias") as string | undefined) ?? null;
    config.host = (read("host") as string | undefined) ?? config.host;
    config.port = integer("port", 0) ?? config.port;
    config.apiKeys = (read("api-key") as string[] | undefined) ?? [];
    config.threads = integer("threads", 1) ?? config.threads;
    config.promptThreads = integer("prompt-threads", 1) ?? config.promptThreads;
    config.contextSize = integer("context-size", 64) ?? null;
    config.parallel = integer("parallel", 1) ?? config.parallel;
    config.batchSize = integer("batch-size", 1) ?? config.batchSize;
    config.queueLimit = integer("queue-limit", 0) ?? config.queueLimit;
    config.gpu = parseGpu(read("gpu") as string | undefined);
    config.flashAttention = read("flash-attention") === true;
    config.cacheTypeK = parseKeyCacheType(read("cache-type-k") as string | undefined) ?? config.cacheTypeK;
    config.draftModelPath = (read("draft-model") as string | undefined) ?? null;
    config.speculative = parseSpeculative(read("speculative") as string | undefined, config.draftModelPath);
    config.busyPollBelowTokenMs = integer("busy-poll-below-ms", 0) ?? config.busyPollBelowTokenMs;
    config.stopSequences = ((read("stop") as string[] | undefined) ?? []).map(unescapeStop);
    config.strictModel = read("strict-model") === true;
    config.strictTools = read("strict-tools") === true;
    config.reasoningSecret = (read("reasoning-secret") as string | undefined) ?? null;
    config.reasoningEchoMaxBytes = integer("reasoning-echo-max-bytes", 0) ?? config.reasoningEchoMaxBytes;
    config.allowedOrigins = ((read("allowed-origins") as string | undefined) ?? "").split(",").map((origin) => origin.trim())
        .filter(Boolean);
    config.bodyLimitBytes = integer("body-limit", 1024) ?? config.bodyLimitBytes;
    config.streamKeepAliveSeconds = integer("stream-keepalive-secs", 0) ?? config.streamKeepAliveSeconds;
    /** The five bounds both LRU stores take, read from the flags of one prefix. */
    const storeBounds = (prefix: "responses-store" | "conversation-store", defaults: StoreSettings): Required<StoreSettings> => ({
        maxEntries: integer(`${prefix}-max-entries`, 0) ?? defaults.maxEntries,
        maxBytes: integer(`${prefix}-max-bytes`, 0) ?? defaults.maxBytes,
        ttlSeconds: integer(`${prefix}-ttl-secs`, 0) ?? defaults.ttlSeconds,
        ownerMaxEntries: integer(`${prefix}-owner-max-entries`, 0) ?? defaults.ownerMaxEntries ?? 0,
        ownerMaxBytes: integer(`${prefix}-owner-max-bytes`, 0) ?? defaults.ownerMaxBytes ?? 0
    });
    config.store = storeBounds("responses-store", config.store);
    const storeKind = (read("store") as string | undefined) ?? "durable";
    if (storeKind !== "durable" && storeKind !== "memory")
        throw new CliUsageError(`--store must be durable or memory (got '${storeKind}').`);
    config.storage = {
        kind: storeKind,
        dataDir: (read("data-dir") as string | undefined) ?? defaultDataDir(),
        promptCacheMaxBytes: integer("prompt-cache-max-bytes", 0) ?? defaultPromptCacheMaxBytes,
        promptCacheMinTokens: integer("prompt-cache-min-tokens", 1) ?? defaultPromptCacheMinTokens,
        promptCacheTtlSeconds: integer("prompt-cache-ttl-secs", 0) ?? defaultPromptCacheTtlSeconds
    };
    config.sharedPromptCache = read("shared-prompt-cache") === true;
    const background = config.background;
    config.background = {
        maxJobs: integer("responses-background-max-jobs", 0) ?? background.maxJobs,
        maxJobsPerKey: integer("responses-background-max-jobs-per-key", 1) ?? background.maxJobsPerKey,
        workers: integer("responses-background-workers", 1) ?? background.workers,
        deadlineSeconds: integer("responses-background-deadline-secs", 1) ?? background.deadlineSeconds,
        retentionSeconds: integer("responses-background-retention-secs", 1) ?? background.retentionSeconds,
        retainedJobs: integer("responses-background-retained-jobs", 0) ?? background.retainedJobs,
        inputMaxBytes: integer("responses-background-input-max-bytes", 1024) ?? background.inputMaxBytes,
        eventMaxCount: integer("responses-background-event-max-count", 16) ?? background.eventMaxCount,
        eventMaxBytes: integer("responses-background-event-max-bytes", 4096) ?? background.eventMaxBytes,
        streamReaders: integer("responses-background-stream-readers", 1) ?? background.streamReaders,
        streamReadersPerKey: integer("responses-background-stream-readers-per-key", 1) ?? background.streamReadersPerKey,
        streamWriteTimeoutSeconds: integer("responses-background-stream-write-timeout-secs", 1) ?? background.streamWriteTimeoutSeconds
    };
    config.conversations = storeBounds("conversation-store", config.conversations);
    config.compaction = {
        keepTokens: integer("compaction-keep-tokens", 1) ?? config.compaction.keepTokens,
        summaryMaxTokens: integer("compaction-summary-max-tokens", 1) ?? config.compaction.summaryMaxTokens,
        secret: (read("compaction-secret") as string | undefined) ?? config.compaction.secret
    };
    return {
        config,
        apiKeyFile: (read("api-key-file") as string | undefined) ?? null,
        upstreamApiKeyFile: (read("upstream-api-key-file") as string | undefined) ?? null,
        noAuth: read("no-auth") === true,
        help: read("help") === true
    };
}

function parseEngine(raw: string | undefined): HostConfig["engine"] {
    if (raw == null || raw === "local")
        return "local";
    if (raw === "upstream")
        return raw;
    throw new CliUsageError(`--engine must be local or upstream (got '${raw}').`);
}

function checkUpstreamUrl(raw: string): string {
    if (!isUpstreamUrl(raw))
        throw new CliUsageError(`--upstream must be an http(s) URL (got '${raw}').`);
    return raw;
}

function parseGpu(raw: string | undefined): GpuChoice {
    if (raw == null || raw === "false" || raw === "off" || raw === "cpu")
        return false;
    if (raw === "auto" || raw === "cuda" || raw === "vulkan" || raw === "metal")
        return raw;
    throw new CliUsageError(`--gpu must be auto, false, cuda, vulkan or metal (got '${raw}').`);
}

function parseSpeculative(raw: string | undefined, draftModel: string | null): SpeculativeKind {
    const kind = raw ?? (draftModel != null ? "draft" : "off");
    if (kind !== "off" && kind !== "lookup" && kind !== "draft")
        throw new CliUsageError(`--speculative must be off, lookup or draft (got '${raw}').`);
    if (kind === "draft" && draftModel == null)
        throw new CliUsageError("--speculative draft needs --draft-model FILE (a small model with the same vocabulary).");
    if (kind !== "draft" && draftModel != null)
        throw new CliUsageError(`--draft-model is only used with --speculative draft (got --speculative ${kind}).`);
    return kind;
}

function parseKeyCacheType(raw: string | undefined): KeyCacheType | undefined {
    if (raw == null || isKeyCacheType(raw))
        return raw;
    throw new CliUsageError(`--cache-type-k must be ${keyCacheTypes.join(" or ")} (got '${raw}').`);
}

export function cliHelp(): string {
    const width = Math.max(...Object.keys(cliFlags).map((name) => name.length));
    const lines = Object.entries(cliFlags).map(([name, flag]) => {
        const env = flag.env === "" ? "" : ` [${flag.env}]`;
        return `  --${name.padEnd(width)}  ${flag.help}${env}`;
    });
    return "Usage: local-responses serve --model FILE [options]\n"
        + "       local-responses serve --engine upstream --upstream URL [options]\n\n"
        + "Serves the OpenAI Responses API on 127.0.0.1 from a local GGUF model, or in front of OpenAI-compatible "
        + "Chat Completions servers.\n\n"
        + `Options (environment variable in brackets):\n${lines.join("\n")}\n`;
}

/** `--stop '\n'` arrives as backslash-n from a shell: read the usual escapes. */
function unescapeStop(text: string): string {
    return text.replace(/\\([nrt\\])/g, (_match, code: string) => ({n: "\n", r: "\r", t: "\t", "\\": "\\"})[code]!);
}
