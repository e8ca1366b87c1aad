/** Anthropic Messages' wire shapes (`POST /v1/messages`): the message object, its content blocks and stream events. */

export type MessageStopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use";

export type MessageContentBlock =
    | {type: "text", text: string}
    | {type: "thinking", thinking: string, signature: string}
    | {type: "tool_use", id: string, name: string, input: unknown};

/** Anthropic counts cached prompt tokens apart: `input_tokens` are the ones evaluated for this request. */
export type MessageUsage = {
    input_tokens: number,
    output_tokens: number,
    cache_read_input_tokens: number,
    cache_creation_input_tokens: number
};

export type MessageObject = {
    id: string,
    type: "message",
    role: "assistant",
    model: string,
    content: MessageContentBlock[],
    stop_reason: MessageStopReason | null,
    stop_sequence: string | null,
    usage: MessageUsage
};

export type MessagesBlockDelta =
    | {type: "text_delta", text: string}
    | {type: "thinking_delta", thinking: string}
    | {type: "input_json_delta", partial_json: string}
    | {type: "signature_delta", signature: string};

export type MessagesErrorType =
    | "invalid_request_error" | "authentication_error" | "permission_error" | "not_found_error" | "request_too_large"
    | "rate_limit_error" | "api_error" | "overloaded_error";

export type MessagesErrorBody = {type: "error", error: {type: MessagesErrorType, message: string}};

/** Every event a Messages stream sends, in order: start, blocks (start, deltas, stop), the closing delta, stop. */
export type MessagesStreamEvent =
    | {type: "message_start", message: MessageObject}
    | {type: "content_block_start", index: number, content_block: MessageContentBlock}
    | {type: "content_block_delta", index: number, delta: MessagesBlockDelta}
    | {type: "content_block_stop", index: number}
    | {type: "message_delta", delta: {stop_reason: MessageStopReason, stop_sequence: string | null}, usage: MessageUsage}
    | {type: "message_stop"}
    | {type: "ping"}
    | MessagesErrorBody;
