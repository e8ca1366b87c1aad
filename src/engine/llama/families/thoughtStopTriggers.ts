import type {ChatWrapper, ChatWrapperGenerateContextStateOptions, ChatWrapperGeneratedContextState} from "node-llama-cpp";
import type {NodeLlamaCpp} from "../../models/loadBinding.js";

/**
 * node-llama-cpp's Jinja wrapper takes the text its template writes after an assistant message as the end of a turn;
 * GLM-4.6's template writes `<think></think>` into every assistant message, so `</think>` becomes a stop trigger and
 * every answer ends where its thought closes (no text, no call). A view of `wrapper` without the stop triggers that
 * are its own thought's closer; `wrapper` itself where none is.
 */
export function withoutThoughtStopTriggers(binding: NodeLlamaCpp, wrapper: ChatWrapper): ChatWrapper {
    const suffix = wrapper.settings.segments?.thought?.suffix;
    if (suffix == null)
        return wrapper;
    const closer = binding.LlamaText(suffix).toString().trim();
    const view = Object.create(wrapper) as ChatWrapper;
    // Called on the outermost view (`this`), so that views built on this one (their settings, their result rendering) render.
    view.generateContextState = function (this: ChatWrapper,
        options: ChatWrapperGenerateContextStateOptions): ChatWrapperGeneratedContextState {
        const state = wrapper.generateContextState.call(this, options);
        const kept = state.stopGenerationTriggers.filter((trigger) => binding.LlamaText(trigger).toString().trim() !== closer);
        return kept.length === state.stopGenerationTriggers.length ? state : {...state, stopGenerationTriggers: kept};
    };
    return view;
}
