import type {Worker} from "node:worker_threads";
import {startWorker} from "../startWorker.js";
import {fitFromHeader, type ModelFit, type ModelFitOptions, type ModelHeader} from "./modelFit.js";

/** What a fit is asked for (a signal cannot cross to the worker: `ModelFitWorker` stops the worker instead). */
export type WorkerFitOptions = Omit<ModelFitOptions, "signal">;
export type ModelFitRequest = {id: number, uri: string};
export type ModelFitReply = {id: number, header: ModelHeader} | {id: number, error: string};

export type ModelFitWorkerLimits = {
    /** The worker's V8 heap (old generation): a header whose values need more fails the read, not the server. */
    heapMb: number,
    /** The longest one read may take before the worker is stopped. */
    timeoutMs: number
};

/**
 * Reads of real models' headers stay far below both: stories260K's takes ~16 MB of heap; a vocabulary of 256K tokens
 * with its merges is tens of MB. A 40 MB header of metadata needed ~550 MB and 7 s. The time includes the worker's
 * start (importing node-llama-cpp's JavaScript): seconds on a loaded machine, more from source under tsx.
 */
export const defaultModelFitWorkerLimits: ModelFitWorkerLimits = {heapMb: 256, timeoutMs: 60_000};

/**
 * `estimateModelFit` for local files in a worker thread with a heap cap and a time limit, one read at a time: a crafted or
 * broken model file in the models folder (counts that claim 2^40 items, gigabytes of metadata) costs that read its
 * worker, never the server's event loop or memory. The worker starts on demand, is stopped after any failure (a
 * fresh one serves the next read) and once no read is waiting, so an idle server keeps no node-llama-cpp heap for it.
 */
export class ModelFitWorker {
    private worker: Worker | undefined;
    private turn: Promise<unknown> = Promise.resolve();
    private waiting = 0;
    private nextId = 0;

    public constructor(private readonly limits: ModelFitWorkerLimits = defaultModelFitWorkerLimits) {}

    public async estimate(options: WorkerFitOptions): Promise<ModelFit> {
        return fitFromHeader(await this.header(options.uri), options);
    }

    /** The header read in the worker, one read at a time. */
    private header(uri: string): Promise<ModelHeader> {
        this.waiting++;
        const read = this.turn.then(() => this.read(uri)).finally(() => {
            if (--this.waiting === 0)
                this.stop();
        });
        this.turn = read.catch(() => undefined);
        return read;
    }

    private async read(uri: string): Promise<ModelHeader> {
        const worker = this.worker ??= this.start();
        const id = this.nextId++;
        let timer: NodeJS.Timeout | undefined;
        const listeners: {message?: (reply: ModelFitReply) => void, error?: (error: Error) => void, exit?: (code: number) => void} = {};
        try {
            return await new Promise<ModelHeader>((resolve, reject) => {
                timer = setTimeout(() => reject(new Error(`reading its GGUF header took over ${this.limits.timeoutMs / 1000} s`)),
                    this.limits.timeoutMs);
                listeners.message = (reply) => {
                    if (reply.id !== id)
                        return;
                    if ("header" in reply)
                        resolve(reply.header);
                    else
                        reject(new Error(oneLine(reply.error)));
                };
                listeners.error = (error) => reject((error as NodeJS.ErrnoException).code === "ERR_WORKER_OUT_OF_MEMORY"
                    ? new Error(`reading its GGUF header needed over ${this.limits.heapMb} MB of memory`)
                    : new Error(`reading its GGUF header failed: ${oneLine(error.message)}`));
                listeners.exit = (code) => reject(new Error(`the GGUF header reader stopped (exit code ${code})`));
                worker.on("message", listeners.message).on("error", listeners.error).on("exit", listeners.exit);
                worker.postMessage({id, uri} satisfies ModelFitRequest);
            });
        } catch (error) {
            // A read that failed may have left the worker hung or its heap full: the next read gets a fresh one.
            this.stop();
            throw error;
        } finally {
            clearTimeout(timer);
            worker.off("message", listeners.message!).off("error", listeners.error!).off("exit", listeners.exit!);
        }
    }

    private start(): Worker {
        const worker = startWorker("modelFitWorkerMain", import.meta.url, {
            resourceLimits: {maxOldGenerationSizeMb: this.limits.heapMb}
        });
        // A read in progress must not keep a headless process alive.
        worker.unref();
        // Failures reach the read in progress; one between reads must not be an unhandled 'error' event.
        worker.on("error", () => undefined);
        return worker;
    }

    private stop(): void {
        void this.worker?.terminate();
        this.worker = undefined;
    }
}

/** node-llama-cpp's and Node's messages may span lines; a library entry's failure is one. */
function oneLine(message: string): string {
    return message.split("\n").map((line) => line.trim()).filter((line) => line !== "")[0] ?? "unknown error";
}
