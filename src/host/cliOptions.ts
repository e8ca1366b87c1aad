import {parseArgs} from "node:util";
import type {GpuChoice} from "../engine/LlamaEngine.js";
import {defaultConfig, type HostConfig} from "./config.js";

/** Each flag, its environment variable and its help line: one table so the three never drift apart. */
export const cliFlags = {
    "model": {type: "string", env: "LOCAL_RESPONSES_MODEL", help: "GGUF model file to serve (required)"},
    "model-alias": {type: "string", env: "LOCAL_RESPONSES_MODEL_ALIAS", help: "model name reported to clients (default: file name)"},
    "host": {type: "string", env: "LOCAL_RESPONSES_HOST", help: "address to bind (default 127.0.0.1)"},
    "port": {type: "string", env: "LOCAL_RESPONSES_PORT", help: "port (default 8080; 0 picks a free one)"},
    "api-key": {type: "string", multiple: true, env: "LOCAL_RESPONSES_API_KEY", help: "accepted API key (repeatable; env: comma-separated)"},
    "api-key-file": {type: "string", env: "LOCAL_RESPONSES_API_KEY_FILE", help: "0600 file holding the key, created with a new key if missing (default ~/.config/local-responses/api-key)"},
    "no-auth": {type: "boolean", env: "LOCAL_RESPONSES_NO_AUTH", help: "serve without an API key (loopback only; not recommended)"},
    "threads": {type: "string", env: "LOCAL_RESPONSES_THREADS", help: "CPU threads (default cores - 1)"},
    "context-size": {type: "string", env: "LOCAL_RESPONSES_CONTEXT_SIZE", help: "context tokens per sequence (default: model's, at most 8192)"},
    "parallel": {type: "string", env: "LOCAL_RESPONSES_PARALLEL", help: "parallel sequences (default 4)"},
    "queue-limit": {type: "string", env: "LOCAL_RESPONSES_QUEUE_LIMIT", help: "requests waiting for a sequence before 503 (default 64)"},
    "gpu": {type: "string", env: "LOCAL_RESPONSES_GPU", help: "auto, false, cuda, vulkan or metal (default false)"},
    "flash-attention": {type: "boolean", env: "LOCAL_RESPONSES_FLASH_ATTENTION", help: "enable flash attention (slower on CPU)"},
    "strict-model": {type: "boolean", env: "LOCAL_RESPONSES_STRICT_MODEL", help: "require 'model' to name the loaded model"},
    "strict-tools": {type: "boolean", env: "LOCAL_RESPONSES_STRICT_TOOLS", help: "refuse hosted tool types with 400 instead of ignoring them"},
    "reasoning-secret": {type: "string", env: "LOCAL_RESPONSES_REASONING_SECRET", help: "HMAC secret for reasoning encrypted_content tokens (default: random per process; not encryption)"},
    "reasoning-echo-max-bytes": {type: "string", env: "LOCAL_RESPONSES_REASONING_ECHO_MAX_BYTES", help: "reasoning remembered to re-inject when clients drop it (default 16777216; 0 disables)"},
    "allowed-origins": {type: "string", env: "LOCAL_RESPONSES_ALLOWED_ORIGINS", help: "comma-separated browser origins allowed (CORS); none by default"},
    "body-limit": {type: "string", env: "LOCAL_RESPONSES_BODY_LIMIT", help: "largest request body in bytes (default 16777216)"},
    "responses-store-max-entries": {type: "string", env: "LOCAL_RESPONSES_STORE_MAX_ENTRIES", help: "stored responses (default 1024; 0 disables storage)"},
    "responses-store-max-bytes": {type: "string", env: "LOCAL_RESPONSES_STORE_MAX_BYTES", help: "store byte budget (default 268435456)"},
    "responses-store-ttl-secs": {type: "string", env: "LOCAL_RESPONSES_STORE_TTL_SECS", help: "seconds a stored response lives (default 3600; 0 = no expiry)"},
    "help": {type: "boolean", env: "", help: "show this help"}
} as const;

export type CliFlag = keyof typeof cliFlags;

export type CliOptions = {config: HostConfig, apiKeyFile: string | null, noAuth: boolean, help: boolean};

export class CliUsageError extends Error {}

export function parseCliOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
    const {values} = parseArgs({
        args: argv,
        options: Object.fromEntries(Object.entries(cliFlags).map(([name, flag]) => [name, {type: flag.type, multiple: "multiple" in flag ? flag.multiple : false}])),
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
    config.modelPath = (read("model") as string | undefined) ?? null;
    config.modelAlias = (read("model-alias") as string | undefined) ?? null;
    config.host = (read("host") as string | undefined) ?? config.host;
    config.port = integer("port", 0) ?? config.port;
    config.apiKeys = (read("api-key") as string[] | undefined) ?? [];
    config.threads = integer("threads", 1) ?? config.threads;
    config.contextSize = integer("context-size", 64) ?? null;
    config.parallel = integer("parallel", 1) ?? config.parallel;
    config.queueLimit = integer("queue-limit", 0) ?? config.queueLimit;
    config.gpu = parseGpu(read("gpu") as string | undefined);
    config.flashAttention = read("flash-attention") === true;
    config.strictModel = read("strict-model") === true;
    config.strictTools = read("strict-tools") === true;
    config.reasoningSecret = (read("reasoning-secret") as string | undefined) ?? null;
    config.reasoningEchoMaxBytes = integer("reasoning-echo-max-bytes", 0) ?? config.reasoningEchoMaxBytes;
    config.allowedOrigins = ((read("allowed-origins") as string | undefined) ?? "").split(",").map((origin) => origin.trim()).filter(Boolean);
    config.bodyLimitBytes = integer("body-limit", 1024) ?? config.bodyLimitBytes;
    config.store = {
        maxEntries: integer("responses-store-max-entries", 0) ?? config.store.maxEntries,
        maxBytes: integer("responses-store-max-bytes", 0) ?? config.store.maxBytes,
        ttlSeconds: integer("responses-store-ttl-secs", 0) ?? config.store.ttlSeconds
    };
    return {
        config,
        apiKeyFile: (read("api-key-file") as string | undefined) ?? null,
        noAuth: read("no-auth") === true,
        help: read("help") === true
    };
}

function parseGpu(raw: string | undefined): GpuChoice {
    if (raw == null || raw === "false" || raw === "off" || raw === "cpu")
        return false;
    if (raw === "auto" || raw === "cuda" || raw === "vulkan" || raw === "metal")
        return raw;
    throw new CliUsageError(`--gpu must be auto, false, cuda, vulkan or metal (got '${raw}').`);
}

export function cliHelp(): string {
    const lines = Object.entries(cliFlags).map(([name, flag]) => {
        const env = flag.env === "" ? "" : ` [${flag.env}]`;
        return `  --${name.padEnd(30)} ${flag.help}${env}`;
    });
    return `Usage: local-responses serve --model FILE [options]\n\nServes the OpenAI Responses API from a local GGUF model on 127.0.0.1.\n\nOptions (environment variable in brackets):\n${lines.join("\n")}\n`;
}
