import type {LlamaContext} from "node-llama-cpp";

export type BatchThreadsOptions = {
    /** Threads for a batch that evaluates a prompt (at least `promptBatchTokens` tokens). */
    promptThreads: number,
    /** Threads for a batch of generated tokens (one per generating sequence). */
    generationThreads: number,
    /**
     * The smallest batch counted as prompt evaluation. Defaults to one more than the context's sequences: a batch of
     * generated tokens holds one token per sequence, so anything larger carries a prompt.
     *
     * Not a fixed 64: deep in a long prompt, a step of ~0.5 s holds fewer tokens than that (a step's attention spans
     * every token before it), and with 64 those steps fell back to the generation threads, which made them slower
     * still. Seen on the captured Codex request (~22k tokens, synthetic SmolLM2-135M, 2 cores): one core busy for most
     * of the prompt.
     */
    promptBatchTokens?: number
};

/** The native context's members this reaches (node-llama-cpp 3.21.1's `AddonContext`, pinned in package.json). */
type AddonContext = {initBatch(size: number): void, setThreads(threads: number): void, decodeBatch(): Promise<void>};

/**
 * Gives prompt batches and generation batches their own thread counts.
 *
 * Why: on a small machine prompt evaluation wants every core and generation does not (measured on the synthetic
 * SmolLM2-135M, 2 cores, quiet: a 1,600-token prompt at 201–204 tokens/s with 1 thread and 316–375 with 2; generation
 * at 63–64 tokens/s with 1 thread and 41–48 with 2, as the JavaScript thread that samples and streams each token then
 * competes with the evaluation). node-llama-cpp 3.21.1 sets one count for both (`setThreads` sets llama.cpp's
 * `n_threads` and `n_threads_batch` together, before every batch), so this sets it per batch, from the batch's size,
 * just before the batch is decoded. It reaches node-llama-cpp's private native context; `install` returns false (and
 * changes nothing) if that is not the shape it expects, and a test pins the shape.
 */
export class BatchThreads {
    private batchTokens = 0;
    private applied = 0;

    private constructor(private readonly addon: AddonContext, private readonly options: Required<BatchThreadsOptions>) {}

    /** Installs the per-batch choice on a context; false (nothing changed) if its native context is not as expected. */
    public static install(context: LlamaContext, options: BatchThreadsOptions): BatchThreads | null {
        const addon = (context as unknown as {_ctx?: Partial<AddonContext>})._ctx;
        if (addon == null || typeof addon.initBatch !== "function" || typeof addon.setThreads !== "function"
            || typeof addon.decodeBatch !== "function")
            return null;
        const threads = new BatchThreads(addon as AddonContext, {promptBatchTokens: context.totalSequences + 1, ...options});
        threads.wrap(addon as AddonContext);
        return threads;
    }

    /** The thread count the last batch was decoded with (0 before the first). */
    public get lastThreads(): number {
        return this.applied;
    }

    private wrap(addon: AddonContext): void {
        const initBatch = addon.initBatch.bind(addon);
        const setThreads = addon.setThreads.bind(addon);
        const decodeBatch = addon.decodeBatch.bind(addon);
        // The native methods are read-only on the prototype: own properties shadow them.
        const define = (name: keyof AddonContext, value: unknown) => Object.defineProperty(addon, name,
            {value, configurable: true, writable: true});
        define("initBatch", (size: number) => {
            this.batchTokens = size;
            initBatch(size);
        });
        // node-llama-cpp's thread splitter asks for its one count before each batch; the batch's own count replaces it.
        define("setThreads", () => undefined);
        define("decodeBatch", () => {
            const wanted = this.batchTokens >= this.options.promptBatchTokens ? this.options.promptThreads : this.options.generationThreads;
            if (wanted !== this.applied) {
                setThreads(wanted);
                this.applied = wanted;
            }
            return decodeBatch();
        });
    }
}
