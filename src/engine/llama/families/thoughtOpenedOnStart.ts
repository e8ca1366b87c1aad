import type {
    ChatHistoryItem, ChatWrapper, ChatWrapperGenerateContextStateOptions, ChatWrapperGeneratedContextState, LlamaText
} from "node-llama-cpp";
import type {NodeLlamaCpp} from "../../models/loadBinding.js";

type Binding = Pick<NodeLlamaCpp, "LlamaText" | "SpecialTokensText">;

/**
 * node-llama-cpp renders the turn being generated as a past assistant message cut at its content, and the templates of
 * DeepSeek V3.1, Kimi K2 Thinking, GLM-4.7 and Nemotron 3 Nano write an empty thought (`<think></think>`, or GLM-4.7's
 * lone `</think>`) into every past message without reasoning: the prompt closes the thought before the model starts,
 * and the model can never reason. A view of `wrapper` that opens the thought instead, as the template's own
 * generation prompt does with thinking on: the empty thought is taken off the prompt's end and the thought opens with
 * the response (LlamaChat writes the opener and reads what follows as the thought). `wrapper` itself where its prompt
 * does not close an empty thought. The wrapper stays the rendering for thinking off (reasoning effort `none`).
 */
export function withThoughtOpenedOnStart(binding: Binding, wrapper: ChatWrapper): ChatWrapper {
    const thought = wrapper.settings.segments?.thought;
    if (thought == null || thought.openOnResponseStart === true || typeof thought.prefix !== "string" && !isText(thought.prefix))
        return wrapper;
    const opener = binding.LlamaText(thought.prefix as string).toString();
    const closer = binding.LlamaText(thought.suffix ?? "").toString();
    if (opener.trim() === "" || closer.trim() === "")
        return wrapper;
    const emptyThought = new RegExp(`(${escape(opener.trim())}\\s*)?${escape(closer.trim())}\\s*$`);
    const probe = wrapper.generateContextState({chatHistory: [{type: "user", text: "Hi"}, {type: "model", response: []}]});
    if (!emptyThought.test(probe.contextText.toString()))
        return wrapper;

    const view = Object.create(wrapper) as ChatWrapper;
    const segments = {...wrapper.settings.segments, thought: {...thought, openOnResponseStart: true}};
    Object.defineProperty(view, "settings", {value: {...wrapper.settings, segments}});
    Object.defineProperty(view, "wrapperName", {value: wrapper.wrapperName});
    view.generateContextState = function (this: ChatWrapper,
        options: ChatWrapperGenerateContextStateOptions): ChatWrapperGeneratedContextState {
        const state = wrapper.generateContextState.call(this, options);
        const opened = openedThoughtOf(options.chatHistory.at(-1));
        if (opened == null)
            return state;
        const contextText = withoutEmptyThoughtBefore(binding, state.contextText, opened.open ? opener + opened.text : "", emptyThought);
        return contextText == null ? state : {...state, contextText};
    };
    return view;
}

/**
 * The turn being generated when it is empty, or holds only the thought LlamaChat opened (with its text so far);
 * undefined for a turn that has more.
 */
function openedThoughtOf(last: ChatHistoryItem | undefined): {open: boolean, text: string} | undefined {
    if (last?.type !== "model")
        return undefined;
    if (last.response.length === 0)
        return {open: false, text: ""};
    const [only] = last.response;
    return last.response.length === 1 && typeof only === "object" && only.type === "segment" && only.segmentType === "thought"
        && only.ended !== true ? {open: true, text: only.text} : undefined;
}

/**
 * `text` without the empty thought its template wrote just before `tail` (the opened thought, or nothing), or
 * undefined where there is none (node-llama-cpp already removed a `<think></think>` pair matching its settings).
 */
function withoutEmptyThoughtBefore(binding: Binding, text: LlamaText, tail: string, emptyThought: RegExp): LlamaText | undefined {
    const values = [...text.values];
    let rest = tail;
    let index = values.length - 1;
    // The opened thought is written after the template's text, in the same special-tokens part or in parts of its own.
    while (index >= 0) {
        const value = textOf(binding, values[index]);
        const last = values[index];
        if (last instanceof binding.SpecialTokensText && value.endsWith(rest)) {
            const template = value.slice(0, value.length - rest.length);
            if (!emptyThought.test(template))
                return undefined;
            values[index] = new binding.SpecialTokensText(template.replace(emptyThought, "") + rest);
            return binding.LlamaText(values);
        }
        if (rest === "" || !rest.endsWith(value))
            return undefined;
        rest = rest.slice(0, rest.length - value.length);
        index--;
    }
    return undefined;
}

function textOf(binding: Binding, value: LlamaText["values"][number]): string {
    return binding.LlamaText(value).toString();
}

function isText(value: unknown): boolean {
    return typeof value === "object" && value != null && !("type" in value);
}

function escape(text: string): string {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
