import type {ModelInfo} from "../../engine/types.js";

/** What the completion provider reads of the settings and the running core to decide whether it suggests, and from what. */
export type AvailabilityInputs = {
    enabled: boolean,
    /** `localResponses.completions.model`; null: the loaded (or the library's default) model. */
    model: string | null,
    engineKind: "local" | "upstream",
    loaded: ModelInfo | null,
    /** Whether a model library serves (its models load on demand, so none need be loaded). */
    library: boolean,
    /** The engine's refusal of the last model asked (one without fill-in-the-middle tokens), by the name asked; null: none. */
    refusal: {model: string | null, message: string} | null
};

export type CompletionAvailability =
    | {state: "on", /** The model name requests carry; undefined: the default. */ model: string | undefined, label: string}
    | {state: "off" | "unavailable", hint: string};

/** Whether suggestions are asked for, from which model, and otherwise the one line that says why not. */
export function completionAvailability(inputs: AvailabilityInputs): CompletionAvailability {
    if (!inputs.enabled)
        return {state: "off", hint: "Code completion is off: click to turn it on."};
    if (inputs.engineKind === "upstream" && !inputs.library)
        return {state: "unavailable", hint: "Code completion needs a local model: the upstream engine serves no fill-in-the-middle."};
    if (inputs.refusal != null && inputs.refusal.model === inputs.model)
        return {state: "unavailable", hint: inputs.refusal.message};
    if (inputs.model != null)
        return {state: "on", model: inputs.model, label: inputs.model};
    if (inputs.loaded == null)
        return inputs.library ? {state: "on", model: undefined, label: "the default model"}
            : {state: "unavailable", hint: "Code completion waits for a model to be loaded."};
    if (inputs.loaded.fillInTheMiddle === false)
        return {
            state: "unavailable",
            hint: `${inputs.loaded.id} has no fill-in-the-middle tokens: set localResponses.completions.model to a model that has `
                + "(Qwen2.5-Coder, Codestral, DeepSeek-Coder, StarCoder2, …)."
        };
    return {state: "on", model: undefined, label: inputs.loaded.id};
}
