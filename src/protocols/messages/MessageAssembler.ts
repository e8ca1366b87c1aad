import {newId} from "../../protocol/ids.js";
import type {
    MessageContentBlock, MessageObject, MessagesBlockDelta, MessagesStreamEvent, MessageStopReason, MessageUsage
} from "./messagesWire.js";
import {abandonedCall} from "../../protocol/abandonedCall.js";
import type {FunctionCallItem, OutputItem, ResponseObject, StreamEvent} from "../../protocol/wire.js";
import type {MessagesRequest} from "./messagesRequest.js";

export type MessagesEventSink = (event: MessagesStreamEvent) => void;

/** The prompt's tokens as admission measured them: what `message_start` reports before any output. */
export type PromptUsage = {promptTokens: number, cachedPrefixTokens: number};

/**
 * Reads a response's stream events (the Responses domain's one generation path) and writes the Anthropic message
 * they make: its stream events (`message_start`, the content blocks, `message_delta`, `message_stop`) to `sink`, and
 * the message object itself for a client that did not stream. Reasoning items become `thinking` blocks, message
 * items `text` blocks, function calls `tool_use` blocks. The engine stops the answer at a stop sequence and cuts the text
 * there; the run's outcome says which one it was, so the message's end (`message_delta`, `message_stop`) is written by
 * `end`, after the run returned.
 */
export class MessageAssembler {
    private readonly message: MessageObject;
    /** The block index of each open output item, by its `output_index`. */
    private readonly open = new Map<number, number>();
    private readonly omitThinking: boolean;
    /** The response as it completed (or stopped incomplete), until `end` writes the message's end. */
    private ended: ResponseObject | undefined;
    /** Each closed `tool_use` block's call status, for `abandonedCall` once the response's status is known. */
    private readonly callStatus = new Map<MessageContentBlock, FunctionCallItem["status"]>();

    public constructor(
        request: Pick<MessagesRequest, "model" | "omitThinking">,
        private readonly sink: MessagesEventSink
    ) {
        const {model} = request;
        this.omitThinking = request.omitThinking;
        this.message = {
            id: newId("msg"), type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null,
            usage: {input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0}
        };
    }

    /** The message as it stands: whole once the response completed. */
    public get result(): MessageObject {
        return this.message;
    }

    /** Opens the stream with the prompt's usage (known once the request was admitted). */
    public start(prompt: PromptUsage): void {
        this.message.usage = usage(prompt.promptTokens, prompt.cachedPrefixTokens, 0);
        this.sink({type: "message_start", message: structuredClone(this.message)});
    }

    public onEvent(event: StreamEvent): void {
        switch (event.type) {
            case "response.output_item.added":
                this.addBlock(event.output_index, event.item);
                break;
            case "response.output_text.delta":
                this.text(event.output_index, event.delta);
                break;
            case "response.reasoning_text.delta":
                if (!this.omitThinking)
                    this.delta(event.output_index, {type: "thinking_delta", thinking: event.delta});
                break;
            case "response.function_call_arguments.delta":
                this.delta(event.output_index, {type: "input_json_delta", partial_json: event.delta});
                break;
            case "response.output_item.done":
                this.closeBlock(event.output_index, event.item);
                break;
            case "response.completed":
            case "response.incomplete":
                // Finished by `end`, once the run returned where the answer stopped.
                this.ended = event.response;
                break;
            case "response.failed":
                this.sink({type: "error", error: {type: "api_error", message: event.response.error?.message ?? "The generation failed."}});
                break;
        }
    }

    private addBlock(outputIndex: number, item: OutputItem): void {
        const block = newBlock(item);
        if (block == null)
            return;
        const index = this.message.content.push(block) - 1;
        this.open.set(outputIndex, index);
        this.sink({type: "content_block_start", index, content_block: structuredClone(block)});
    }

    private text(outputIndex: number, text: string): void {
        if (text !== "")
            this.delta(outputIndex, {type: "text_delta", text});
    }

    private delta(outputIndex: number, delta: MessagesBlockDelta): void {
        const index = this.open.get(outputIndex);
        if (index == null)
            return;
        const block = this.message.content[index]!;
        if (delta.type === "text_delta" && block.type === "text")
            block.text += delta.text;
        else if (delta.type === "thinking_delta" && block.type === "thinking")
            block.thinking += delta.thinking;
        else if (delta.type === "signature_delta" && block.type === "thinking")
            block.signature = delta.signature;
        this.sink({type: "content_block_delta", index, delta});
    }

    private closeBlock(outputIndex: number, item: OutputItem): void {
        const index = this.open.get(outputIndex);
        if (index == null)
            return;
        const block = this.message.content[index]!;
        if (block.type === "tool_use" && item.type === "function_call") {
            block.input = parseArguments(item.arguments);
            this.callStatus.set(block, item.status);
        }
        if (block.type === "thinking" && item.type === "reasoning" && item.encrypted_content != null)
            this.delta(outputIndex, {type: "signature_delta", signature: item.encrypted_content});
        this.open.delete(outputIndex);
        this.sink({type: "content_block_stop", index});
    }

    /** Ends a completed or incomplete message: its stop reason (`stopSequence` when the answer ended at one) and usage. */
    public end(stoppedAt?: string): void {
        const response = this.ended;
        if (response == null)
            return;
        this.ended = undefined;
        this.message.content = this.message.content.filter((block) => {
            const status = this.callStatus.get(block);
            return status == null || !abandonedCall({status}, response);
        });
        const stopSequence = stoppedAt ?? null;
        const stopReason: MessageStopReason = stopSequence != null ? "stop_sequence"
            : response.status === "incomplete" ? "max_tokens"
                : this.message.content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
        this.message.stop_reason = stopReason;
        this.message.stop_sequence = stopSequence;
        if (response.usage != null)
            this.message.usage = usage(
                response.usage.input_tokens, response.usage.input_tokens_details.cached_tokens, response.usage.output_tokens
            );
        this.sink({type: "message_delta", delta: {stop_reason: stopReason, stop_sequence: stopSequence}, usage: {...this.message.usage}});
        this.sink({type: "message_stop"});
    }
}

function newBlock(item: OutputItem): MessageContentBlock | null {
    switch (item.type) {
        case "message":
            return {type: "text", text: ""};
        case "reasoning":
            // The signature (a `signature_delta` before the block's stop) is the thought sealed by this server.
            return {type: "thinking", thinking: "", signature: ""};
        case "function_call":
            return {type: "tool_use", id: item.call_id, name: item.name, input: {}};
        default:
            return null;
    }
}

/** Anthropic's `input_tokens` leave out the cached prefix (`cache_read_input_tokens`); nothing is written to a paid cache. */
function usage(promptTokens: number, cachedTokens: number, outputTokens: number): MessageUsage {
    return {
        input_tokens: promptTokens - cachedTokens,
        output_tokens: outputTokens,
        cache_read_input_tokens: cachedTokens,
        cache_creation_input_tokens: 0
    };
}

/** A call's arguments as the object `tool_use.input` holds (a call cut by the token limit keeps what parsed: nothing). */
function parseArguments(text: string): unknown {
    try {
        return JSON.parse(text) as unknown;
    } catch {
        return {};
    }
}
