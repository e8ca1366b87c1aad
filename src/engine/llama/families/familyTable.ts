import type {CallSyntaxName} from "./nativeCallSyntax.js";
import type {TextCallFormatName} from "./textCallFormats.js";
import type {ToolListName} from "./toolListInSystem.js";

/**
 * A model family recognised by its chat template: texts only its template holds (all must be present), and either the
 * call syntax of ours that replaces node-llama-cpp's, or the text format its calls are read in after free generation.
 */
export type ModelFamily = {
    id: string,
    label: string,
    fingerprint: readonly string[],
    /** A template that never renders its tools gets this list of ours in the system message. */
    toolList?: ToolListName
} & ({
    callSyntax: CallSyntaxName,
    /**
     * "always" where node-llama-cpp's wrapper has a syntax of its own that the model does not write (its DeepSeek
     * wrapper's `<function=…>`); "ifGeneric" where node-llama-cpp's Jinja wrapper could not find the template's call
     * syntax and fell back to its generic `||call:` one.
     */
    replace: "always" | "ifGeneric",
    textCalls?: undefined
} | {
    /**
     * Arguments written one by one (textCallFormats.ts), which LlamaChat's JSON-grammar calls cannot read: with
     * `tool_choice: auto` the model writes freely and its calls are read from the text. A forced call keeps
     * node-llama-cpp's syntax (its grammar makes the call valid, in one JSON argument).
     */
    textCalls: TextCallFormatName,
    callSyntax?: undefined,
    replace?: undefined
});

/** Most specific first: the first family whose fingerprint the template holds is the model's. */
export const modelFamilies: readonly ModelFamily[] = [
    {id: "kimi-k2", label: "Kimi K2", fingerprint: ["<|tool_calls_section_begin|>", "## Return of"], callSyntax: "kimiK2",
        replace: "ifGeneric"},
    {id: "mistral-args", label: "Mistral [ARGS]", fingerprint: ["[TOOL_CALLS]", "[ARGS]"], callSyntax: "mistralArgs",
        replace: "ifGeneric"},
    {id: "granite-3", label: "Granite 3", fingerprint: ["<|tool_call|>", "<|start_of_role|>"], callSyntax: "graniteList",
        replace: "ifGeneric"},
    {id: "deepseek-r1", label: "DeepSeek R1", fingerprint: ["<｜tool▁calls▁begin｜>", "```json"], callSyntax: "deepSeekR1",
        replace: "always"},
    {id: "deepseek-v3.1", label: "DeepSeek V3.1", fingerprint: ["<｜tool▁calls▁begin｜>", "<｜tool▁sep｜>"], callSyntax: "deepSeekV31",
        replace: "always", toolList: "deepSeekV31"},
    {id: "command-r7b", label: "Command R7B", fingerprint: ["<|START_ACTION|>", "tool_call_id"], callSyntax: "commandR7b",
        replace: "always"},
    {id: "seed-oss", label: "Seed-OSS", fingerprint: ["<seed:tool_call>", "<function=", "<parameter="],
        textCalls: "seedFunctionParameter"},
    {id: "qwen3-coder", label: "Qwen3-Coder XML", fingerprint: ["<tool_call>", "<function=", "<parameter="],
        textCalls: "functionParameter"},
    {id: "glm-4.5", label: "GLM-4.5+", fingerprint: ["<tool_call>", "<arg_key>", "<arg_value>"], textCalls: "argKeyValue"},
    {id: "gemma-4", label: "Gemma 4", fingerprint: ["<|tool_call>", "<|\"|>"], textCalls: "gemma4"},
    {id: "minimax-m2", label: "MiniMax-M2", fingerprint: ["<minimax:tool_call>", "<invoke name="], textCalls: "invoke"}
];

/** The family whose fingerprint `template` holds, or none. */
export function detectFamily(template: string | undefined): ModelFamily | undefined {
    if (template == null)
        return undefined;
    return modelFamilies.find((family) => family.fingerprint.every((text) => template.includes(text)));
}
