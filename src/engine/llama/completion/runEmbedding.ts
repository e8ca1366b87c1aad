import type {LlamaEmbeddingContext, Token} from "node-llama-cpp";
import type {EmbeddingRequest, EmbeddingResult} from "../../completionTypes.js";
import {promptTooLong, type LoadedModel} from "../runtime/LoadedModel.js";

/**
 * Each loaded model's embedding context, made on its first embedding request (a chat model never pays for one), and
 * the queue its requests take turns in: an embedding context evaluates one input at a time. Freed with the model.
 */
const embedders = new WeakMap<LoadedModel, {context: Promise<LlamaEmbeddingContext>, queue: Promise<unknown>}>();

/**
 * One vector per input from node-llama-cpp's `LlamaEmbeddingContext`: the model's pooled output (GGUF
 * `<arch>.pooling_type`) for an embedding model, else llama.cpp's default pooling of its last hidden states.
 * An unload waits for the request (it is in `loaded.active`).
 */
export function runEmbedding(loaded: LoadedModel, request: EmbeddingRequest, threads: number): Promise<EmbeddingResult> {
    const inputs = request.inputs.map((input) => typeof input === "string" ? loaded.model.tokenize(input, false) : input as Token[]);
    const longest = Math.max(0, ...inputs.map((tokens) => tokens.length));
    if (longest >= loaded.info.contextSize)
        throw promptTooLong({promptTokens: longest}, loaded.info);
    let embedder = embedders.get(loaded);
    if (embedder == null) {
        const context = loaded.model.createEmbeddingContext({contextSize: loaded.info.contextSize, threads});
        embedder = {context, queue: context};
        embedders.set(loaded, embedder);
        // A context that could not be made (memory) is tried again by the next request.
        context.catch(() => embedders.delete(loaded));
    }
    const {context} = embedder;
    const controller = new AbortController();
    const run = embedder.queue.catch(() => undefined).then(async () => {
        const embedding = await context;
        const vectors: number[][] = [];
        for (const tokens of inputs) {
            request.signal?.throwIfAborted();
            controller.signal.throwIfAborted();
            vectors.push([...(await embedding.getEmbeddingFor(tokens)).vector]);
        }
        return {vectors, inputTokens: inputs.reduce((total, tokens) => total + tokens.length, 0)};
    });
    embedder.queue = run;
    loaded.active.set(controller, run.catch(() => undefined));
    return run.finally(() => loaded.active.delete(controller));
}
