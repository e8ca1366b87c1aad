import type {ChatCompletionChunk, ChatDelta, ChatFinishReason, ChatLogprobs} from "./chatWire.js";
import type {ResponseObject, StreamEvent} from "../../protocol/wire.js";
import {chatCompletionId, finishReason, toChatLogprobs, toChatUsage} from "./chatCompletion.js";

/** Where chunks go: `delta` says whether one carries generated text (it may leave grouped with the next ones). */
export type ChunkSink = (chunk: ChatCompletionChunk, delta: boolean) => void;

export type ChunkOptions = {includeUsage: boolean, logprobs: boolean};

/**
 * Turns a response's stream events (as `GenerationRunner` publishes them, validated output released) into Chat
 * Completions chunks: the assistant role first, then content, `reasoning_content` and tool-call deltas as they come
 * (a call's first delta carries its index, id and name, the next ones fragments of its arguments), a last chunk with
 * the finish reason and, with `include_usage`, one with empty choices and the usage. Events with no chunk of their own
 * (items opening and closing, keep-alives) are skipped; a failed response is the caller's to report.
 */
export class ChatChunkWriter {
    private head: Pick<ChatCompletionChunk, "id" | "created" | "model"> | undefined;
    /** Output index of each tool call → its index among the calls, as Chat Completions numbers them. */
    private readonly callIndexes = new Map<number, number>();

    public constructor(private readonly sink: ChunkSink, private readonly options: ChunkOptions) {}

    public onEvent(event: StreamEvent): void {
        switch (event.type) {
            case "response.created":
                this.head = {id: chatCompletionId(event.response), created: event.response.created_at, model: event.response.model};
                this.send({role: "assistant", content: "", refusal: null}, false);
                return;
            case "response.output_text.delta":
                this.send({content: event.delta}, true);
                return;
            case "response.output_text.done":
                if (this.options.logprobs && event.logprobs.length > 0)
                    this.send({}, false, toChatLogprobs(event.logprobs));
                return;
            case "response.reasoning_text.delta":
                this.send({reasoning_content: event.delta}, true);
                return;
            case "response.output_item.added":
                if (event.item.type === "function_call") {
                    const index = this.callIndexes.size;
                    this.callIndexes.set(event.output_index, index);
                    const {call_id: id, name} = event.item;
                    this.send({tool_calls: [{index, id, type: "function", function: {name, arguments: ""}}]}, false);
                }
                return;
            case "response.function_call_arguments.delta": {
                const index = this.callIndexes.get(event.output_index);
                if (index != null)
                    this.send({tool_calls: [{index, function: {arguments: event.delta}}]}, true);
                return;
            }
            case "response.completed":
            case "response.incomplete":
                this.finish(event.response);
                return;
            default:
                return;
        }
    }

    private finish(response: ResponseObject): void {
        this.send({}, false, null, finishReason(response, this.callIndexes.size > 0));
        if (this.options.includeUsage && this.head != null)
            this.sink({
                ...this.head, object: "chat.completion.chunk", system_fingerprint: null, choices: [], usage: toChatUsage(response.usage)
            }, false);
    }

    private send(delta: ChatDelta, isDelta: boolean, logprobs: ChatLogprobs | null = null, finish: ChatFinishReason | null = null): void {
        if (this.head == null)
            return;
        this.sink({
            ...this.head,
            object: "chat.completion.chunk",
            system_fingerprint: null,
            choices: [{index: 0, delta, logprobs, finish_reason: finish}],
            ...(this.options.includeUsage ? {usage: null} : {})
        }, isDelta);
    }
}
