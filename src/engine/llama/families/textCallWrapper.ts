import type {ChatWrapper, ChatWrapperGenerateContextStateOptions, ChatWrapperGeneratedContextState} from "node-llama-cpp";
import type {NodeLlamaCpp} from "../../models/loadBinding.js";

/** A text no model writes (NUL characters): as the call prefix, LlamaChat never engages its function calling. */
const neverWrittenCallPrefix = "\u0000\u0000call\u0000";

/**
 * A view of `wrapper` for free generation with tools (text call formats, textCallFormats.ts): the prompt renders exactly
 * as `wrapper` renders it (its template shows the tools, earlier calls and their results in the model's own format,
 * so the KV prefix is the same), but LlamaChat's call detection is given a prefix no model writes, so the model's own
 * calls reach the answer's text, where TextCallReader reads them.
 */
export function withTextCalls(binding: Pick<NodeLlamaCpp, "LlamaText">, wrapper: ChatWrapper): ChatWrapper {
    const view = Object.create(wrapper) as ChatWrapper;
    const {functions} = wrapper.settings;
    Object.defineProperty(view, "wrapperName", {value: `${wrapper.wrapperName}+textCalls`});
    Object.defineProperty(view, "settings", {value: {
        ...wrapper.settings,
        functions: {
            call: {optionalPrefixSpace: false, prefix: binding.LlamaText(neverWrittenCallPrefix), paramsPrefix: "", suffix: ""},
            result: functions.result
        }
    }});
    // Rendered by the wrapper itself, with its own settings (`this` is the wrapper, not the view).
    view.generateContextState = (options: ChatWrapperGenerateContextStateOptions): ChatWrapperGeneratedContextState =>
        wrapper.generateContextState(options);
    return view;
}
