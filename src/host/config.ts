import os from "node:os";
import type {GpuChoice} from "../engine/LlamaEngine.js";

/** Everything a Local Responses server can be told, with the defaults both faces share. */
export type HostConfig = {
    modelPath: string | null,
    /** Name reported for the model; defaults to the file name. */
    modelAlias: string | null,
    host: string,
    port: number,
    /** Accepted API keys; empty disables authentication (the CLI generates one unless told otherwise). */
    apiKeys: string[],
    threads: number,
    contextSize: number | null,
    parallel: number,
    queueLimit: number,
    gpu: GpuChoice,
    flashAttention: boolean,
    strictModel: boolean,
    strictTools: boolean,
    /** HMAC secret for reasoning `encrypted_content` tokens (null: random per process, tokens die with it). */
    reasoningSecret: string | null,
    /** Bytes of produced reasoning remembered to re-inject when clients drop it (0 disables). */
    reasoningEchoMaxBytes: number,
    allowedOrigins: string[],
    bodyLimitBytes: number,
    store: {maxEntries: number, maxBytes: number, ttlSeconds: number}
};

export function defaultThreads(): number {
    return Math.max(1, os.availableParallelism() - 1);
}

export function defaultConfig(): HostConfig {
    return {
        modelPath: null,
        modelAlias: null,
        host: "127.0.0.1",
        port: 8080,
        apiKeys: [],
        threads: defaultThreads(),
        contextSize: null,
        parallel: 4,
        queueLimit: 64,
        gpu: false,
        flashAttention: false,
        strictModel: false,
        strictTools: false,
        reasoningSecret: null,
        reasoningEchoMaxBytes: 16 * 1024 * 1024,
        allowedOrigins: [],
        bodyLimitBytes: 16 * 1024 * 1024,
        store: {maxEntries: 1024, maxBytes: 256 * 1024 * 1024, ttlSeconds: 3600}
    };
}
