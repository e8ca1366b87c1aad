import type {ChatWrapper, ChatWrapperGenerateContextStateOptions, ChatWrapperGeneratedContextState} from "node-llama-cpp";
import type {NodeLlamaCpp} from "../../models/loadBinding.js";

/** Marks a user turn's text through node-llama-cpp's rendering (a text no client sends: NUL characters). */
const userMarker = "\u0000user\u0000";
const systemRole = "<seed:bos>system\n";

/**
 * node-llama-cpp 3.21.1's Seed wrapper writes user turns with the system role (`<seed:bos>system\nQUESTION`), where
 * Seed-OSS's template writes `<seed:bos>user\n`: the model would read every question as a system instruction. A view
 * of `wrapper` that renders user turns with their role: each user text is marked, and the role token before a
 * marked text is the user's.
 */
export function withSeedUserTurns(binding: Pick<NodeLlamaCpp, "LlamaText" | "SpecialTokensText">, wrapper: ChatWrapper): ChatWrapper {
    if (wrapper.wrapperName !== "Seed")
        return wrapper;
    const view = Object.create(wrapper) as ChatWrapper;
    view.generateContextState = function (this: ChatWrapper,
        options: ChatWrapperGenerateContextStateOptions): ChatWrapperGeneratedContextState {
        const chatHistory = options.chatHistory.map((item) => item.type === "user" ? {...item, text: userMarker + item.text} : item);
        const state = wrapper.generateContextState.call(this, {...options, chatHistory});
        const values = [...state.contextText.values];
        for (const [index, value] of values.entries()) {
            const next = values[index + 1];
            if (typeof next !== "string" || !next.startsWith(userMarker))
                continue;
            if (value instanceof binding.SpecialTokensText && value.value.endsWith(systemRole))
                values[index] = new binding.SpecialTokensText(`${value.value.slice(0, -systemRole.length)}<seed:bos>user\n`);
            values[index + 1] = next.slice(userMarker.length);
        }
        return {...state, contextText: binding.LlamaText(values)};
    };
    return view;
}
