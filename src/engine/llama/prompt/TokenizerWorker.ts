import path from "node:path";
import {fileURLToPath} from "node:url";
import {Worker} from "node:worker_threads";
import type {Token} from "node-llama-cpp";
import type {GpuSetting} from "../../models/prebuiltBinaries.js";

export type TokenizerWorkerData = {modelPath: string, gpu: GpuSetting};
export type TokenizeRequest = {id: number, text: string, specialTokens: boolean | "builtin", options?: "trimLeadingSpace"};
export type TokenizeReply = {id: number, tokens: Uint32Array} | {id: number, error: string};
type WorkerMessage = TokenizeReply | {ready: true} | {failed: string};

/**
 * A worker thread holding the model's vocabulary (loaded vocabulary-only, a few MB) that tokenizes text off the event
 * loop. Started on first use and kept until `dispose`; a worker that cannot start fails every call, and the caller
 * falls back to tokenizing in place.
 */
export class TokenizerWorker {
    private worker: Worker | undefined;
    private started: Promise<Worker> | undefined;
    private nextId = 0;
    private readonly waiting = new Map<number, {resolve: (tokens: Token[]) => void, reject: (error: Error) => void}>();

    public constructor(private readonly data: TokenizerWorkerData) {}

    public async tokenize(text: string, specialTokens: boolean | "builtin" = false, options?: "trimLeadingSpace"): Promise<Token[]> {
        const worker = await this.start();
        const id = this.nextId++;
        return new Promise((resolve, reject) => {
            this.waiting.set(id, {resolve, reject});
            worker.postMessage({id, text, specialTokens, options} satisfies TokenizeRequest);
        });
    }

    public async dispose(): Promise<void> {
        const worker = this.worker;
        this.worker = undefined;
        this.started = undefined;
        this.failAll(new Error("The tokenizer worker was stopped."));
        await worker?.terminate();
    }

    private start(): Promise<Worker> {
        this.started ??= new Promise<Worker>((resolve, reject) => {
            const worker = new Worker(workerEntry(), {workerData: this.data});
            this.worker = worker;
            // An idle worker must not keep a headless process alive.
            worker.unref();
            worker.on("message", (message: WorkerMessage) => {
                if ("ready" in message)
                    resolve(worker);
                else if ("failed" in message)
                    reject(new Error(`The tokenizer worker could not load the model: ${message.failed}`));
                else
                    this.settle(message);
            });
            worker.on("error", (error) => {
                reject(error);
                this.failAll(error);
            });
            worker.on("exit", () => {
                if (this.worker === worker) {
                    this.worker = undefined;
                    this.started = undefined;
                }
                this.failAll(new Error("The tokenizer worker exited."));
            });
        });
        return this.started;
    }

    private settle(reply: TokenizeReply): void {
        const waiter = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        if ("error" in reply)
            waiter?.reject(new Error(reply.error));
        else
            waiter?.resolve(Array.from(reply.tokens) as Token[]);
    }

    private failAll(error: Error): void {
        for (const waiter of this.waiting.values())
            waiter.reject(error);
        this.waiting.clear();
    }
}

/**
 * The worker's entry file: built beside the CommonJS bundles as dist/tokenizerWorkerMain.js; from source (tests run
 * through tsx, whose loader the worker inherits with the process's execArgv) the TypeScript file beside this one.
 */
function workerEntry(): string {
    if (typeof __dirname === "string")
        return path.join(__dirname, "tokenizerWorkerMain.js");
    return path.join(path.dirname(fileURLToPath(import.meta.url)), "tokenizerWorkerMain.ts");
}
