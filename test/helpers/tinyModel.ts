import {after, before} from "node:test";
import type {Llama, LlamaModel} from "node-llama-cpp";
import {loadNodeLlamaCpp} from "../../src/engine/models/loadBinding.js";
import {models} from "./paths.js";

/**
 * Loads a shared tiny model with node-llama-cpp (one thread) for the enclosing describe block, and frees it after.
 * Returns a getter: the model exists once the block's tests run.
 */
export function useTinyModel(modelPath: string = models.chatml): () => LlamaModel {
    let llama: Llama | undefined;
    let model: LlamaModel | undefined;
    before(async () => {
        const {getLlama} = await loadNodeLlamaCpp();
        llama = await getLlama({gpu: false, build: "never", maxThreads: 1});
        model = await llama.loadModel({modelPath});
    });
    after(async () => {
        await model?.dispose();
        await llama?.dispose();
    });
    return () => model!;
}
