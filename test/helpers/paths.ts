import path from "node:path";

export const repoRoot = path.resolve(import.meta.dirname, "../..");
export const sharedDir = path.resolve(repoRoot, "../shared");
export const models = {
    /** ChatML, 2048-token context advertised. */
    chatml: path.join(sharedDir, "models/stories260K.gguf"),
    /** Qwen Jinja template with a tools section. */
    qwen: path.join(sharedDir, "models/stories260K-qwen.gguf"),
    /** Qwen 3.5 wrapper: every response opens a thought. */
    think: path.join(sharedDir, "models/stories260K-think.gguf")
};
export const capturesDir = path.join(sharedDir, "reference/captures");
export const openApiPath = path.join(sharedDir, "reference/openresponses-openapi.json");
