import type {ModelInfo} from "../../engine/types.js";

/**
 * The local model's chat format as `/v1/models` and `/v1/status` spell it: which wrapper renders the prompts, the model
 * family it was recognised as, and whether the model's own tool-call syntax is parsed. Absent for upstream models.
 */
export function chatFormatWire(model: ModelInfo): {chat_format?: {wrapper: string, family: string | null, tool_calls_understood: boolean}} {
    const format = model.chatFormat;
    return format == null ? {}
        : {chat_format: {wrapper: format.wrapper, family: format.family, tool_calls_understood: format.toolCallsUnderstood}};
}
