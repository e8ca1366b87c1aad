import type {GenerationRequest} from "../../engine/types.js";
import type {CreateParams} from "../createRequest.js";
import {thoughtBudgetFor} from "../reasoning/reasoningEffort.js";

export type GenerationShape = Pick<GenerationRequest, "tools" | "toolMode" | "json" | "thoughtBudget" | "reasoningEffort">;

/**
 * How `tools`/`tool_choice`, `text.format` and `reasoning` shape one generation. The same shape
 * is given to the engine at admission (it decides how the prompt renders and is measured) and at
 * generation.
 *
 * node-llama-cpp cannot combine a JSON grammar with function calling in one generation, so:
 * a forced call (`required`/named) wins over `text.format` (the JSON applies to a later answer);
 * with `auto`, structured output wins and the tools are not offered for this turn.
 */
export function generationShape(params: CreateParams): GenerationShape {
    const thoughtBudget = thoughtBudgetFor(params.reasoning?.effort, params.maxOutputTokens);
    const reasoningEffort = params.reasoning?.effort ?? undefined;
    const mode = params.toolChoice.mode;
    const format = params.textFormat;
    if (format.type === "text" || mode?.type === "required")
        return {tools: params.toolChoice.offered, toolMode: mode ?? undefined, thoughtBudget, reasoningEffort};
    return {
        tools: [],
        toolMode: undefined,
        json: format.type === "json_object" ? {type: "object"} : {type: "schema", schema: format.schema},
        thoughtBudget,
        reasoningEffort
    };
}
