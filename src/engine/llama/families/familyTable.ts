import type {CallSyntaxName} from "./nativeCallSyntax.js";

/**
 * A model family recognised by its chat template: texts only its template holds (all must be present), and the call
 * syntax of ours that replaces node-llama-cpp's. `replace`: "always" where node-llama-cpp's wrapper has a syntax of its
 * own that the model does not write (its DeepSeek wrapper's `<function=…>`); "ifGeneric" where node-llama-cpp's Jinja
 * wrapper could not find the template's call syntax and fell back to its generic `||call:` one.
 */
export type ModelFamily = {
    id: string,
    label: string,
    fingerprint: readonly string[],
    callSyntax: CallSyntaxName,
    replace: "always" | "ifGeneric"
};

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
        replace: "always"},
    {id: "command-r7b", label: "Command R7B", fingerprint: ["<|START_ACTION|>", "tool_call_id"], callSyntax: "commandR7b",
        replace: "always"}
];

/** The family whose fingerprint `template` holds, or none. */
export function detectFamily(template: string | undefined): ModelFamily | undefined {
    if (template == null)
        return undefined;
    return modelFamilies.find((family) => family.fingerprint.every((text) => template.includes(text)));
}
