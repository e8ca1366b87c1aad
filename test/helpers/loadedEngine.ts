import {LlamaEngine, type LlamaEngineOptions} from "../../src/engine/llama/LlamaEngine.js";

/**
 * Runs `use` on a real LlamaEngine loaded with `modelPath` (one thread, a 1024-token context and one sequence unless
 * `options` say otherwise), and disposes it whatever happens.
 */
export async function withEngine<T>(modelPath: string, use: (engine: LlamaEngine) => Promise<T>,
    options: LlamaEngineOptions = {}): Promise<T> {
    const engine = new LlamaEngine({threads: 1, contextSize: 1024, parallel: 1, ...options});
    await engine.load(modelPath);
    try {
        return await use(engine);
    } finally {
        await engine.dispose();
    }
}
