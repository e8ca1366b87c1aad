import type {
    ChatHistoryItem, ChatModelFunctions, ChatWrapper, ChatWrapperGenerateContextStateOptions, ChatWrapperGeneratedContextState
} from "node-llama-cpp";

/** The tool lists of our own for templates that never render the tools they are given. */
const toolLists = {
    /**
     * DeepSeek V3.1's template takes no `tools`: its model card puts them in the system prompt, in this form, with the
     * call format the model was trained on (the same one `nativeCallSyntax.ts` reads).
     */
    deepSeekV31: (functions: ChatModelFunctions): string => [
        "## Tools",
        "You have access to the following tools:",
        "",
        ...Object.entries(functions).flatMap(([name, fn]) => [
            `### ${name}`,
            `Description: ${fn.description ?? ""}`,
            "",
            `Parameters: ${JSON.stringify(fn.params ?? {type: "object", properties: {}})}`,
            ""
        ]),
        "IMPORTANT: ALWAYS adhere to this exact format for tool use:",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>tool_call_name<｜tool▁sep｜>tool_call_arguments<｜tool▁call▁end｜>"
            + "{{additional_tool_calls}}<｜tool▁calls▁end｜>",
        "",
        "Where:",
        "- `tool_call_name` must be an exact match to one of the available tools",
        "- `tool_call_arguments` must be valid JSON that strictly follows the tool's Parameters Schema",
        "- For multiple tool calls, chain them directly without separators or spaces"
    ].join("\n")
} satisfies Record<string, (functions: ChatModelFunctions) => string>;

export type ToolListName = keyof typeof toolLists;

/**
 * A view of `wrapper` that shows the model its tools in the system message (after the client's own system text), for
 * templates that would not show them at all. Depends only on the tools, so a conversation's prefix stays the same.
 */
export function withToolListInSystem(wrapper: ChatWrapper, name: ToolListName): ChatWrapper {
    const view = Object.create(wrapper) as ChatWrapper;
    view.generateContextState = function (this: ChatWrapper,
        options: ChatWrapperGenerateContextStateOptions): ChatWrapperGeneratedContextState {
        const functions = options.availableFunctions;
        if (functions == null || Object.keys(functions).length === 0)
            return wrapper.generateContextState.call(this, options);
        const list = toolLists[name](functions);
        const [first, ...rest] = options.chatHistory;
        const chatHistory: ChatHistoryItem[] = first?.type === "system"
            ? [{...first, text: `${first.text.toString()}\n\n${list}`}, ...rest]
            : [{type: "system", text: list}, ...options.chatHistory];
        return wrapper.generateContextState.call(this, {...options, chatHistory});
    };
    return view;
}
