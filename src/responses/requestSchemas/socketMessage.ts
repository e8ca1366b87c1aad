import {always, note} from "./errorNotes.js";

const unsupportedType = note("Unsupported WebSocket message type '{value}': send 'response.create'.", "unsupported_message_type");

/**
 * JSON Schema of a WebSocket client message: a `response.create` event whose other fields are a create body (checked
 * by the create schema when the turn is prepared). Every turn streams over the socket, so `stream: true` is tolerated
 * (some clients reuse their HTTP body); `stream: false` and `background` cannot be honoured and are refused.
 */
export const socketMessageSchema = {
    $id: "socketMessage",
    type: "object",
    required: ["type"],
    properties: {
        type: {const: "response.create", errors: {default: unsupportedType, required: unsupportedType}},
        stream: {
            enum: [true, null], ...always("'stream' does not apply over WebSocket: every turn streams its events.", "unsupported_parameter")
        },
        background: {
            enum: [false, null],
            ...always("'background' is not supported over WebSocket: use HTTP for background responses.", "unsupported_parameter")
        },
        stream_options: {type: ["object", "null"], ...always("'stream_options' must be an object.", "invalid_type")}
    },
    errors: {type: note("A WebSocket message must be a JSON object.", "invalid_message")}
};

export type SocketMessageBody = {
    type: "response.create",
    stream?: true | null,
    background?: false | null,
    stream_options?: Record<string, unknown> | null,
    [field: string]: unknown
};
