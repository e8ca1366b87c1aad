import type {ChatWrapperSettings, LlamaText} from "node-llama-cpp";
import type {NodeLlamaCpp} from "../../models/loadBinding.js";

/** A chat wrapper's function-call syntax: what LlamaChat detects in the model's text and renders in the prompt. */
export type CallSyntax = ChatWrapperSettings["functions"];

/**
 * Builds a text where `<…>`/`[…]`-looking special tokens must match as tokens (a model writes `<|tool_call_begin|>` as
 * one control token, whose text LlamaChat never sees): each `{…}` part is a special token, the rest plain text.
 */
type Texts = (...parts: string[]) => LlamaText;

function textsOf(binding: Pick<NodeLlamaCpp, "LlamaText" | "SpecialTokensText">): Texts {
    return (...parts) => binding.LlamaText(parts.map((part) => part.startsWith("{") && part.endsWith("}")
        ? new binding.SpecialTokensText(part.slice(1, -1))
        : part));
}

/**
 * Each family's own call syntax, as its chat template writes a call and as the model was trained to write one
 * (llama.cpp's common/chat.cpp parses the same texts). LlamaChat detects `sectionPrefix + prefix` in the model's text,
 * then grammar-constrains the function name, inserts `paramsPrefix`, grammar-constrains the JSON arguments and expects
 * `suffix`; so every part here must be exactly what the model writes around a name and its JSON arguments.
 */
const syntaxes = {
    /** `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}<|tool_call_end|>…` */
    kimiK2: (t: Texts): CallSyntax => ({
        call: {
            optionalPrefixSpace: true,
            prefix: t("{<|tool_call_begin|>}", "functions."),
            // The template numbers calls across the conversation; LlamaChat needs one fixed text between name and
            // arguments, so every call the model writes is numbered 0 (the client sees its own call ids anyway).
            paramsPrefix: t(":0", "{<|tool_call_argument_begin|>}"),
            suffix: t("{<|tool_call_end|>}")
        },
        result: {
            prefix: t("{<|im_system|>}", "tool", "{<|im_middle|>}", "## Return of functions.{{functionName}}:0\n"),
            suffix: t("{<|im_end|>}")
        },
        parallelism: {
            call: {sectionPrefix: t("{<|tool_calls_section_begin|>}"), sectionSuffix: t("{<|tool_calls_section_end|>}")},
            result: {sectionPrefix: t("{<|im_end|>}"), sectionSuffix: t("{<|im_assistant|>}", "assistant", "{<|im_middle|>}")}
        }
    }),
    /** Mistral's v7+ tokenizer: `[TOOL_CALLS]NAME[ARGS]{…}`, once per call, results in `[TOOL_RESULTS]…[/TOOL_RESULTS]`. */
    mistralArgs: (t: Texts): CallSyntax => ({
        call: {optionalPrefixSpace: true, prefix: t("{[TOOL_CALLS]}"), paramsPrefix: t("{[ARGS]}"), suffix: ""},
        result: {prefix: t("{[TOOL_RESULTS]}"), suffix: t("{[/TOOL_RESULTS]}")}
    }),
    /** Granite 3.x: `<|tool_call|>[{"name": "NAME", "arguments": {…}}, …]`. */
    graniteList: (t: Texts): CallSyntax => ({
        call: {optionalPrefixSpace: true, prefix: "{\"name\": \"", paramsPrefix: "\", \"arguments\": ", suffix: "}"},
        result: {
            prefix: t("{<|end_of_text|>}", "\n", "{<|start_of_role|>}", "tool_response", "{<|end_of_role|>}"),
            suffix: t("{<|end_of_text|>}", "\n", "{<|start_of_role|>}", "assistant", "{<|end_of_role|>}")
        },
        parallelism: {call: {sectionPrefix: t("{<|tool_call|>}", "["), betweenCalls: ", ", sectionSuffix: "]"}}
    }),
    /** DeepSeek R1 and its distills: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```…` */
    deepSeekR1: (t: Texts): CallSyntax => ({
        call: {
            optionalPrefixSpace: true,
            prefix: t("{<｜tool▁call▁begin｜>}", "function", "{<｜tool▁sep｜>}"),
            paramsPrefix: "\n```json\n",
            suffix: t("\n```", "{<｜tool▁call▁end｜>}")
        },
        result: {prefix: t("{<｜tool▁output▁begin｜>}"), suffix: t("{<｜tool▁output▁end｜>}")},
        parallelism: {
            call: {sectionPrefix: t("{<｜tool▁calls▁begin｜>}"), betweenCalls: "\n", sectionSuffix: t("{<｜tool▁calls▁end｜>}")},
            result: {sectionPrefix: t("{<｜tool▁outputs▁begin｜>}"), betweenResults: "\n", sectionSuffix: t("{<｜tool▁outputs▁end｜>}")}
        }
    }),
    /**
     * DeepSeek V3.1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>`.
     * node-llama-cpp's Jinja extraction finds this syntax but cuts it inside the tokens (`<｜tool▁calls▁begin` |
     * `｜><｜tool▁call▁begin｜>`), so the suffix it inserts after the arguments is half a token written as text.
     */
    deepSeekV31: (t: Texts): CallSyntax => ({
        call: {
            optionalPrefixSpace: true,
            prefix: t("{<｜tool▁call▁begin｜>}"),
            paramsPrefix: t("{<｜tool▁sep｜>}"),
            suffix: t("{<｜tool▁call▁end｜>}")
        },
        result: {prefix: t("{<｜tool▁output▁begin｜>}"), suffix: t("{<｜tool▁output▁end｜>}")},
        parallelism: {call: {sectionPrefix: t("{<｜tool▁calls▁begin｜>}"), betweenCalls: "", sectionSuffix: t("{<｜tool▁calls▁end｜>}")}}
    }),
    /** Command R7B: `<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "NAME", "parameters": {…}}\n]<|END_ACTION|>` */
    commandR7b: (t: Texts): CallSyntax => ({
        call: {
            optionalPrefixSpace: true,
            prefix: "{\"tool_call_id\": \"0\", \"tool_name\": \"",
            paramsPrefix: "\", \"parameters\": ",
            suffix: "}"
        },
        result: {
            prefix: t("{<|END_OF_TURN_TOKEN|>}", "{<|START_OF_TURN_TOKEN|>}", "{<|SYSTEM_TOKEN|>}", "{<|START_TOOL_RESULT|>}"),
            suffix: t("{<|END_TOOL_RESULT|>}", "{<|END_OF_TURN_TOKEN|>}", "{<|START_OF_TURN_TOKEN|>}", "{<|CHATBOT_TOKEN|>}")
        },
        parallelism: {
            call: {sectionPrefix: t("{<|START_ACTION|>}", "[\n    "), betweenCalls: ",\n    ", sectionSuffix: t("\n]", "{<|END_ACTION|>}")}
        }
    })
} as const satisfies Record<string, (t: Texts) => CallSyntax>;

export type CallSyntaxName = keyof typeof syntaxes;

/** The named family syntax, built with the loaded node-llama-cpp's text classes. */
export function nativeCallSyntax(name: CallSyntaxName, binding: Pick<NodeLlamaCpp, "LlamaText" | "SpecialTokensText">): CallSyntax {
    return syntaxes[name](textsOf(binding));
}
