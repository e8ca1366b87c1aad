import type {ChatWrapper, LlamaText} from "node-llama-cpp";
import type {NodeLlamaCpp} from "../../models/loadBinding.js";

type Binding = Pick<NodeLlamaCpp, "LlamaText" | "SpecialTokensText">;
type Part = string | InstanceType<Binding["SpecialTokensText"]>;

/**
 * node-llama-cpp 3.21.1's Gemma 4 wrapper renders earlier calls as `call:NAME{{"key": "value"}}` and results as
 * `<tool_response>response:NAME{"text"}</tool_response>`; Gemma 4's template (and the model) write
 * `<|tool_call>call:NAME{key:<|"|>value<|"|>}<tool_call|>` and `<|tool_response>response:NAME{value:<|"|>text<|"|>}
 * <tool_response|>`, strings quoted with its `<|"|>` token, keys bare and sorted. A view of `wrapper` that renders
 * both the template's way (what `textCallFormats.ts` reads back).
 */
export function withGemma4Calls(binding: Binding, wrapper: ChatWrapper): ChatWrapper {
    if (wrapper.wrapperName !== "Gemma 4")
        return wrapper;
    const special = (text: string) => new binding.SpecialTokensText(text);
    const quote = () => special("<|\"|>");
    const value = (item: unknown): Part[] => {
        if (typeof item === "string")
            return [quote(), item, quote()];
        if (Array.isArray(item))
            return ["[", ...item.flatMap((entry, index) => [...index === 0 ? [] : [","], ...value(entry)]), "]"];
        if (typeof item === "object" && item != null)
            return ["{", ...members(item as Record<string, unknown>), "}"];
        return [JSON.stringify(item ?? null)];
    };
    const members = (object: Record<string, unknown>): Part[] => Object.keys(object).sort()
        .flatMap((key, index) => [...index === 0 ? [] : [","], `${key}:`, ...value(object[key])]);

    const view = Object.create(wrapper) as ChatWrapper;
    view.generateFunctionCall = (name: string, params: unknown): LlamaText => binding.LlamaText([
        special("<|tool_call>call:"), name, "{",
        ...typeof params === "object" && params != null && !Array.isArray(params) ? members(params as Record<string, unknown>) : [],
        special("}<tool_call|>")
    ]);
    view.generateFunctionCallResult = (name: string, _params: unknown, result: unknown): LlamaText => binding.LlamaText([
        special("<|tool_response>"), `response:${name}{`,
        ...typeof result === "object" && result != null && !Array.isArray(result)
            ? members(result as Record<string, unknown>)
            : ["value:", ...value(result === undefined ? "" : result)],
        special("}<tool_response|>")
    ]);
    return view;
}
