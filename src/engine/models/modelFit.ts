import fsSync from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import {defaultContextSize, planContext} from "../engineDefaults.js";
import {checkGgufHeader} from "./ggufHeaderCheck.js";
import {loadNodeLlamaCpp} from "./loadBinding.js";

export type ModelFitOptions = {
    /** A local path, an http(s) URL or an `hf:<user>/<model>[:<quant>]` URI: only the GGUF header is read. */
    uri: string,
    /** Context tokens per sequence the model would be loaded with; null = the engine's default (`planContext`). */
    contextSize: number | null,
    /** Parallel sequences (each holds a context of `contextSize`); null = the engine's default (`planContext`). */
    sequences: number | null,
    /** Batch size the engine evaluates with (its compute buffer grows with it). */
    batchSize?: number,
    signal?: AbortSignal,
    /** Bytes of memory free to use; read from the system (MemAvailable on Linux) when omitted. */
    availableBytes?: number
};

export type ModelFit = {
    /** Bytes of weights (the download size, near enough). */
    modelBytes: number,
    parameters: number,
    architecture: string | null,
    trainContextSize: number | null,
    /** The context size the estimate is for. */
    contextSize: number,
    sequences: number,
    /** RAM the weights need on the CPU (no layer offloaded: the setting this extension ships with). */
    modelRamBytes: number,
    /** RAM the contexts need (KV cache and compute buffers). */
    contextRamBytes: number,
    requiredBytes: number,
    availableBytes: number,
    totalBytes: number,
    /** `fits` within 80% of what is available, `tight` within all of it, `no` beyond. */
    verdict: "fits" | "tight" | "no"
};

/**
 * Whether a model fits this machine at a context size, from node-llama-cpp's own GGUF insights (the memory
 * llama.cpp would allocate for its weights and contexts), read from the file's header only: over HTTP that is a
 * few ranged requests, before any download. CPU only (every layer on the CPU), as the extension runs by default.
 * A local file's header is walked first (`checkGgufHeader`): node-llama-cpp's reader trusts its counts. The server
 * reads its models folder's files through `ModelFitWorker`, which caps the time and memory of the whole read.
 */
export async function estimateModelFit(options: ModelFitOptions): Promise<ModelFit> {
    return fitFromHeader(await readModelHeader(options.uri, options.signal), options);
}

/** What node-llama-cpp reads of a model's GGUF header (its tokenizer's large arrays left out). */
export type ModelHeader = Awaited<ReturnType<Awaited<ReturnType<typeof loadNodeLlamaCpp>>["readGgufFileInfo"]>>;

/**
 * A model's GGUF header, read by node-llama-cpp's reader (plain JavaScript: no native code, so a worker reading it can
 * be stopped at any point), a local file's counts checked against its size first.
 */
export async function readModelHeader(uri: string, signal?: AbortSignal): Promise<ModelHeader> {
    if (isLocalPath(uri))
        await checkGgufHeader(uri);
    const {readGgufFileInfo} = await loadNodeLlamaCpp();
    return readGgufFileInfo(uri, {
        signal, logWarnings: false,
        ignoreKeys: ["tokenizer.ggml.tokens", "tokenizer.ggml.merges", "tokenizer.ggml.token_type", "tokenizer.ggml.scores"]
    });
}

/** The fit `estimateModelFit` gives, from a header already read (`ModelFitWorker` reads it in a worker). */
export async function fitFromHeader(info: ModelHeader, options: Omit<ModelFitOptions, "uri" | "signal">): Promise<ModelFit> {
    const {GgufInsights} = await loadNodeLlamaCpp();
    // node-llama-cpp's insights load its native addon (without a backend): here, on the server's thread, never in the
    // worker, whose stop mid-call would abort the process.
    const insights = await GgufInsights.from(info);
    const trainContextSize = insights.trainContextSize ?? null;
    const {contextSize, parallel: sequences} = planContext(trainContextSize ?? defaultContextSize,
        {contextSize: options.contextSize, parallel: options.sequences});
    const model = await insights.estimateModelResourceRequirementsV2({gpuLayers: 0});
    const context = await insights.estimateContextResourceRequirementsV2({
        contextSize, modelGpuLayers: 0, sequences, batchSize: options.batchSize
    });
    const requiredBytes = model.cpuRam + context.cpuRam;
    const availableBytes = options.availableBytes ?? await availableMemory();
    return {
        modelBytes: insights.modelSize,
        parameters: insights.totalParameters,
        architecture: typeof info.metadata?.general?.architecture === "string" ? info.metadata.general.architecture : null,
        trainContextSize,
        contextSize,
        sequences,
        modelRamBytes: model.cpuRam,
        contextRamBytes: context.cpuRam,
        requiredBytes,
        availableBytes,
        totalBytes: os.totalmem(),
        verdict: requiredBytes <= availableBytes * 0.8 ? "fits" : requiredBytes <= availableBytes ? "tight" : "no"
    };
}

/** Whether a model URI is a file on this machine: no scheme of two letters or more (`C:` is a Windows drive). */
function isLocalPath(uri: string): boolean {
    return !/^[a-z][a-z0-9+.-]+:/i.test(uri);
}

/** Memory a new process can use without swapping: Linux's MemAvailable (free plus reclaimable cache), else the OS's free memory. */
async function availableMemory(): Promise<number> {
    return availableFrom(await fs.readFile("/proc/meminfo", "utf8").catch(() => null));
}

/** `availableMemory` now, read synchronously (a model library's default budget, fixed when the server starts). */
export function availableMemoryNow(): number {
    let meminfo: string | null = null;
    try {
        meminfo = fsSync.readFileSync("/proc/meminfo", "utf8");
    } catch {
        // Not Linux: the OS's free memory.
    }
    return availableFrom(meminfo);
}

function availableFrom(meminfo: string | null): number {
    const kib = meminfo == null ? null : /^MemAvailable:\s+(\d+) kB/m.exec(meminfo)?.[1];
    return kib != null ? Number(kib) * 1024 : os.freemem();
}
