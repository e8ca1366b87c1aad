import type {ChatWrapper, LlamaText} from "node-llama-cpp";
import type {NodeLlamaCpp} from "../../models/loadBinding.js";

/** Stands for a result while the wrapper renders it, then is replaced by the text (private-use characters: never escaped). */
const marker = "\uE000result\uE000";

/**
 * A view of `wrapper` that renders a string tool result as the text itself. node-llama-cpp's wrappers render a result
 * as `jsonDumps(result)`, so an agent's multi-line shell output or file reached the model as one escaped JSON string
 * literal (`"line 1\nline 2"`), and twice escaped where the wrapper or the Jinja template stringifies it again (Mistral,
 * Devstral). Tool outputs from clients are always text: each wrapper renders a marker in the result's place, and the
 * marker, in whichever escaped form it took, becomes the text.
 */
export function withToolResultsAsText(binding: Pick<NodeLlamaCpp, "LlamaText">, wrapper: ChatWrapper): ChatWrapper {
    const view = Object.create(wrapper) as ChatWrapper;
    // The Jinja wrapper hands results to its template JSON-encoded when its template expects objects; text goes as text.
    if ("_stringifyFunctionResult" in wrapper)
        Object.defineProperty(view, "_stringifyFunctionResult", {value: false});
    view.generateFunctionCallResult = function (this: ChatWrapper, name, params, result): LlamaText {
        const rendered = wrapper.generateFunctionCallResult.call(this, name, params, typeof result === "string" ? marker : result);
        return typeof result === "string" ? replaceMarker(binding, rendered, result) : rendered;
    };
    return view;
}

function replaceMarker(binding: Pick<NodeLlamaCpp, "LlamaText">, text: LlamaText, result: string): LlamaText {
    const escapedTwice = JSON.stringify(JSON.stringify(marker));
    const escaped = JSON.stringify(marker);
    return binding.LlamaText(text.values.map((value) => typeof value === "string"
        ? value.replaceAll(escapedTwice, () => result).replaceAll(escaped, () => result).replaceAll(marker, () => result)
        : value));
}
