import type {RawData} from "ws";
import {ApiError, invalidRequest, unsupported} from "../../protocol/errors.js";
import {isObject} from "../../protocol/isObject.js";
import {checkJsonNesting} from "../../responses/jsonNesting.js";

/** The Open Responses `WebSocketErrorEvent`: an HTTP-style status and OpenAI's error payload. */
export type SocketErrorEvent = {
    type: "error",
    status: number,
    error: {type: string, code: string, message: string, param: string | null}
};

/**
 * Reads a client message as a `response.create` event and returns the create body it carries.
 * Every turn streams over the socket, so `stream` is implied: `stream: true` is tolerated (some clients
 * reuse their HTTP body) and removed; `stream: false` and `background` cannot be honoured and are refused.
 */
export function parseCreateMessage(data: RawData, isBinary: boolean): Record<string, unknown> {
    if (isBinary)
        throw invalidRequest("Binary WebSocket messages are not supported: send JSON text.", null, "invalid_message");
    let message: unknown;
    try {
        message = JSON.parse(rawText(data));
    } catch (error) {
        throw new ApiError(400, `The message is not valid JSON: ${(error as Error).message}`, {code: "invalid_json"});
    }
    if (!isObject(message))
        throw invalidRequest("A WebSocket message must be a JSON object.", null, "invalid_message");
    checkJsonNesting(message);
    const {type, stream, stream_options: streamOptions, background, ...body} = message;
    if (type !== "response.create")
        throw invalidRequest(`Unsupported WebSocket message type '${String(type)}': send 'response.create'.`, "type", "unsupported_message_type");
    if (stream != null && stream !== true)
        throw unsupported("stream", "'stream' does not apply over WebSocket: every turn streams its events.");
    if (background != null && background !== false)
        throw unsupported("background", "'background' is not supported over WebSocket: use HTTP for background responses.");
    if (streamOptions != null && !isObject(streamOptions))
        throw invalidRequest("'stream_options' must be an object.", "stream_options", "invalid_type");
    return body;
}

export function socketErrorEvent(error: ApiError): SocketErrorEvent {
    return {
        type: "error",
        status: error.status === 499 ? 400 : error.status,
        error: {type: error.type, code: error.code ?? error.type, message: error.message, param: error.param}
    };
}

function rawText(data: RawData): string {
    if (Array.isArray(data))
        return Buffer.concat(data).toString("utf8");
    return Buffer.from(data as ArrayBuffer).toString("utf8");
}
