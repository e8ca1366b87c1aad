import type {LlamaModel} from "node-llama-cpp";
import type {ModelInfo} from "../../types.js";

/** The model's name and architecture as its GGUF metadata gives them (the editor's model picker shows them). */
export function metadataNames(model: Pick<LlamaModel, "fileInfo">): Pick<ModelInfo, "name" | "architecture"> {
    const general = model.fileInfo.metadata.general as {name?: unknown, architecture?: unknown} | undefined;
    const text = (value: unknown) => typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
    const name = text(general?.name);
    const architecture = text(general?.architecture);
    return {...name == null ? {} : {name}, ...architecture == null ? {} : {architecture}};
}
