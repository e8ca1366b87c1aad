import path from "node:path";
import type {LibraryModel} from "../../engine/types.js";
import type {ControllerState} from "../controller/controllerState.js";
import {describeEngine} from "../status/engineDescription.js";
import type {LanguageModelChatInformation} from "./lmApi.js";

/** What the controller says of the served model (and, with a model library, of every model). */
type ServedModel = Pick<ControllerState, "model" | "engineKind" | "upstreamModel"> & Partial<Pick<ControllerState, "library">>;

/** A library model's context before it is loaded and estimated: what the picker may assume until it knows. */
const unknownContextSize = 4096;

/** Tokens of the context kept for the answer: a quarter of it, at most 4096 (what is left is the prompt's). */
export function outputReserveTokens(contextSize: number): number {
    return Math.max(1, Math.min(4096, Math.floor(contextSize / 4)));
}

/**
 * The models the editor's model picker and `vscode.lm.selectChatModels` see: the one this engine serves (the loaded
 * GGUF, or the upstream model it is connected to), or none while nothing is loaded, which is not an error. The prompt
 * may fill the context per sequence less the answer's reserve; tools are called by grammar; images are not read.
 */
export function chatModelInformation(state: ServedModel): LanguageModelChatInformation[] {
    if (state.library != null)
        return state.library.map(libraryModelInformation);
    const model = state.model;
    if (model == null)
        return [];
    const reserve = outputReserveTokens(model.contextSize);
    const upstream = state.engineKind === "upstream";
    return [{
        id: model.id,
        name: model.name ?? model.id,
        family: model.architecture ?? (upstream ? state.upstreamModel ?? model.id : model.chatWrapper),
        version: upstream ? state.upstreamModel ?? model.id : path.basename(model.path),
        detail: upstream ? "Local Responses · upstream" : "Local Responses · this machine",
        tooltip: `${describeEngine(state.engineKind, model)}: ${model.contextSize} tokens of context (${reserve} kept for the answer), `
            + model.chatWrapper,
        maxInputTokens: model.contextSize - reserve,
        maxOutputTokens: reserve,
        capabilities: {toolCalling: true, imageInput: false}
    }];
}

/**
 * A library model in the picker: listed whether loaded or not (the first request loads it, a stream waiting meanwhile),
 * with its context once known (loaded, or estimated from its file's header).
 */
function libraryModelInformation(model: LibraryModel): LanguageModelChatInformation {
    const contextSize = model.contextSize ?? unknownContextSize;
    const reserve = outputReserveTokens(contextSize);
    const state = model.status === "loaded" ? "loaded" : model.status === "failed" ? `failed to load: ${model.failure}`
        : "loads on first use";
    return {
        id: model.id,
        name: model.info?.name ?? model.id,
        family: model.info?.architecture ?? model.info?.chatWrapper ?? "gguf",
        version: path.basename(model.path),
        detail: `Local Responses · this machine · ${model.status === "loaded" ? "loaded" : "library"}`,
        tooltip: `${model.id} (${state}): ${contextSize} tokens of context (${reserve} kept for the answer)`
            + (model.quantization == null ? "" : `, ${model.quantization}`),
        maxInputTokens: contextSize - reserve,
        maxOutputTokens: reserve,
        capabilities: {toolCalling: true, imageInput: false}
    };
}

/** What the picker shows of the served model, as one string: a change of it is what the change event announces. */
export function chatModelKey(state: ServedModel): string {
    return JSON.stringify(chatModelInformation(state));
}
