import type {LlamaModel} from "node-llama-cpp";
import {EngineError} from "../../EngineError.js";

/**
 * Refuses a chat request to an embedding model, as far as its file tells: it declares a pooling type
 * (`<arch>.pooling_type`, none = 0) and carries no chat template, so no chat format of its own could render the turn,
 * and its output is one pooled vector, not text. An embedding model with a template is served as any model.
 */
export function refuseChatOnEmbeddingModel(model: LlamaModel, id: string): void {
    const metadata = model.fileInfo.metadata as unknown as Record<string, Record<string, unknown> | undefined>;
    const architecture = String(metadata.general?.architecture ?? "");
    const pooling = metadata[architecture]?.pooling_type;
    const template = (metadata.tokenizer as {chat_template?: unknown} | undefined)?.chat_template;
    if (typeof pooling === "number" && pooling > 0 && template == null)
        throw new EngineError("unsupported", `The model '${id}' is an embedding model (it declares a pooling type and no chat ` +
            "template): use it with /v1/embeddings.", {param: "model"});
}
