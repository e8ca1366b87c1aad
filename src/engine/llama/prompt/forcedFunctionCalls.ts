import type {
    ChatWrapper, ChatWrapperGenerateContextStateOptions, ChatWrapperGeneratedContextState, ChatWrapperSettings, LlamaText
} from "node-llama-cpp";
import type {NodeLlamaCpp} from "../../models/loadBinding.js";

/**
 * A view of a chat wrapper whose generation prompt ends with the wrapper's own function-call prefix,
 * with function-calling mode engaged from the first token and no way to disengage it.
 *
 * That is how `tool_choice: "required"` and a named tool choice are enforced whatever the model:
 * the model can only continue with a function name (grammar-constrained to the functions passed to
 * this generation) and then arguments (grammar-constrained to their schema). FunctionaryChatWrapper
 * uses the same `initiallyEngaged` mechanism for its own prompts.
 *
 * The view inherits everything else (settings, history rendering, call parsing) from the wrapper it
 * wraps, so the rendered history and the KV prefix stay those of the model's own template.
 */
export function forceFunctionCalls(wrapper: ChatWrapper, binding: NodeLlamaCpp): ChatWrapper {
    const forced = Object.create(wrapper) as ChatWrapper;
    // Where calls sit in a section (`<minimax:tool_call>`, `<｜tool▁calls▁begin｜>`, `<|START_ACTION|>[`), the model writes
    // the section's opening first: LlamaChat detects `sectionPrefix + prefix`, so both open the forced call.
    const {parallelism, call} = wrapper.settings.functions;
    const prefix = binding.LlamaText([parallelism?.call.sectionPrefix ?? "", call.prefix]);
    Object.defineProperty(forced, "wrapperName", {value: `${wrapper.wrapperName}+forcedCall`});
    Object.defineProperty(forced, "settings", {value: withoutThoughtOnStart(binding, wrapper.settings)});
    forced.generateContextState = (options: ChatWrapperGenerateContextStateOptions): ChatWrapperGeneratedContextState => {
        const state = wrapper.generateContextState(options);
        const lastModelTurnIsEmpty = isOpenEmptyModelTurn(options);
        if (!lastModelTurnIsEmpty || options.availableFunctions == null || Object.keys(options.availableFunctions).length === 0)
            return state;
        return {
            contextText: binding.LlamaText([state.contextText, closeOpenThought(binding, wrapper, state.contextText), prefix]),
            stopGenerationTriggers: state.stopGenerationTriggers,
            ignoreStartText: [],
            functionCall: {initiallyEngaged: true, disengageInitiallyEngaged: []}
        };
    };
    return forced;
}

/**
 * Only a fresh model turn is forced: once the forced call is in the history (LlamaChat re-renders
 * after each call), the wrapper's normal rendering lets the model end its turn or call again.
 */
function isOpenEmptyModelTurn(options: ChatWrapperGenerateContextStateOptions): boolean {
    const last = options.chatHistory.at(-1);
    return last?.type === "model" && last.response.length === 0;
}

/**
 * A wrapper whose thought opens with the response (MiniMax-M2's `openOnResponseStart`, GLM-4.6's `openedOnStart`) makes
 * LlamaChat put an open thought into the model turn before it renders: the turn is no longer empty, so it would never
 * be forced. The forced view's thought opens only where the model writes its opener.
 */
function withoutThoughtOnStart(binding: NodeLlamaCpp, settings: ChatWrapperSettings): ChatWrapperSettings {
    const thought = settings.segments?.thought;
    if (thought == null || (thought.openOnResponseStart !== true && !isOpenedOnStart(thought.prefix)))
        return settings;
    const prefix = isOpenedOnStart(thought.prefix) ? openerOf(binding, thought.suffix) : thought.prefix;
    const forcedThought = {...thought, prefix, openOnResponseStart: false, reopenAfterFunctionCalls: false};
    return {...settings, segments: {...settings.segments, thought: forcedThought}};
}

function isOpenedOnStart(prefix: unknown): prefix is {type: "openedOnStart"} {
    return typeof prefix === "object" && prefix != null && "type" in prefix && prefix.type === "openedOnStart";
}

/** A template-opened thought's opener is not in the settings: it is the closer's tag opened (`</think>` -> `<think>`). */
function openerOf(binding: NodeLlamaCpp, suffix: string | LlamaText | undefined): string {
    return suffix == null ? "" : binding.LlamaText(suffix).toString().trim().replace("</", "<");
}

/**
 * Templates that open the thought themselves (GLM-4.6, MiniMax-M2 end the prompt with `<think>`) would otherwise
 * have the forced call written inside the thought, where it is not a call: the thought is closed first.
 */
function closeOpenThought(binding: NodeLlamaCpp, wrapper: ChatWrapper, context: ChatWrapperGeneratedContextState["contextText"]): string {
    const thought = wrapper.settings.segments?.thought;
    if (thought?.suffix == null)
        return "";
    const text = context.toString();
    const closer = binding.LlamaText(thought.suffix).toString();
    const opener = isOpenedOnStart(thought.prefix) ? openerOf(binding, thought.suffix) : binding.LlamaText(thought.prefix).toString();
    const opened = text.lastIndexOf(opener.trim());
    return opener.trim() !== "" && opened >= 0 && !text.slice(opened).includes(closer.trim()) ? closer : "";
}
