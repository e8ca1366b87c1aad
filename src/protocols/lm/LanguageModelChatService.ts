import {generatedOutputInvalid, modelNotFound, type ApiError} from "../../protocol/errors.js";
import type {ResponseObject} from "../../protocol/wire.js";
import {failedResponseError} from "../../responses/engineErrors.js";
import type {ResponsesService} from "../../responses/ResponsesService.js";
import {toCreateBody, type LmMessage, type LmRequestOptions} from "./lmRequest.js";

/**
 * The owner of the editor's in-process requests: their prompt-cache partition (see `ResponsesService.cachePartition`),
 * apart from every API key's, so an agent-mode conversation reuses its own prefix turn after turn and no one else's.
 */
export const lmOwner = "vscode.lm";

export type LmToolCall = {callId: string, name: string, input: unknown};

/** Where a request's output goes as it is generated: text deltas, and each tool call once complete. */
export type LmSink = {
    text(delta: string): void,
    toolCall(call: LmToolCall): void
};

/**
 * VS Code's `vscode.lm` requests on the Responses domain's one generation path, in process: a request is mapped onto a
 * stateless create body (`lmRequest.ts`) and goes prepare → admit → run like an HTTP request (the same engine, queue,
 * limits, metrics and prompt-prefix reuse), its stream events turned into text deltas and tool calls. Transport-free,
 * like `MessagesService`: the editor's provider (`src/vscode/chatProvider/`) only converts the editor's classes.
 */
export class LanguageModelChatService {
    public constructor(private readonly responses: ResponsesService, private readonly owner: string = lmOwner) {}

    /**
     * Runs one request and resolves with the finished response. Rejects with an `ApiError`: before any output when it
     * is refused (no model, a full queue, a prompt over the context), after some when the generation fails. `signal`
     * stops it at once, prompt evaluation included, as a disconnected HTTP client does.
     */
    public async respond(
        model: string, messages: readonly LmMessage[], options: LmRequestOptions, sink: LmSink, signal?: AbortSignal
    ): Promise<ResponseObject> {
        const prepared = this.responses.prepare(this.owner, toCreateBody(model, messages, options), {protocol: "vscode_lm"});
        // The editor picked a model this server listed; another one loaded since is not what it asked for.
        if (prepared.response.model !== model)
            throw modelNotFound(model, prepared.response.model);
        const admitted = await this.responses.admit(prepared, signal);
        // Set inside the sink: declared with `as`, so that TypeScript does not narrow it to `null` for good.
        let unparsed = null as ApiError | null;
        const {response} = await this.responses.run(admitted, {signal, sink: (event) => {
            const call = event.type === "response.output_item.done" && event.item.type === "function_call" ? event.item : null;
            if (event.type === "response.output_text.delta")
                sink.text(event.delta);
            else if (call != null && call.status === "completed" && unparsed == null) {
                const input = parseArguments(call.arguments);
                if (input === notJson) {
                    const message = `The model's call of '${call.name}' has arguments that are not JSON.`;
                    unparsed = generatedOutputInvalid("invalid_tool_arguments", message);
                } else
                    sink.toolCall({callId: call.call_id, name: call.name, input});
            }
        }});
        if (response.status === "failed")
            throw failedResponseError(response);
        if (unparsed != null)
            throw unparsed;
        return response;
    }

    /** The tokens of a text (as one user message) or of one message, rendered as `respond` renders them. */
    public async countTokens(model: string, input: string | LmMessage): Promise<number> {
        const message: LmMessage = typeof input === "string" ? {role: "user", parts: [{type: "text", text: input}]} : input;
        const counted = await this.responses.countInputTokens(this.owner, toCreateBody(model, [message]));
        return counted.input_tokens;
    }
}

const notJson = Symbol("not JSON");

/** A call's arguments as the editor's `LanguageModelToolCallPart` takes them: parsed (none: an empty object). */
function parseArguments(text: string): unknown {
    try {
        return text.trim() === "" ? {} : JSON.parse(text);
    } catch {
        return notJson;
    }
}
