import type {RawData} from "ws";
import {invalidJson, invalidRequest, type ApiError} from "../../protocol/errors.js";
import {checkJsonNesting} from "../../responses/jsonNesting.js";
import {checkBody, validateSocketMessage} from "../../responses/requestSchemas/validators.js";

/** The Open Responses `WebSocketErrorEvent`: an HTTP-style status and OpenAI's error payload. */
export type SocketErrorEvent = {
    type: "error",
    status: number,
    error: {type: string, code: string, message: string, param: string | null}
};

/**
 * Reads a client message as a `response.create` event (`schemas/socketMessage.ts`) and returns the create body it
 * carries, which the create schema checks when the turn is prepared. Its nesting is bounded before any schema runs.
 */
export function parseCreateMessage(data: RawData, isBinary: boolean): Record<string, unknown> {
    if (isBinary)
        throw invalidRequest("Binary WebSocket messages are not supported: send JSON text.", null, "invalid_message");
    let message: unknown;
    try {
        message = JSON.parse(rawText(data));
    } catch (error) {
        throw invalidJson("message", (error as Error).message);
    }
    checkJsonNesting(message);
    const {type: _type, stream: _stream, stream_options: _streamOptions, background: _background,
        ...body} = checkBody(validateSocketMessage, message);
    return body;
}

export function socketErrorEvent(error: ApiError): SocketErrorEvent {
    return {
        type: "error",
        status: error.sentStatus,
        error: {type: error.type, code: error.code ?? error.type, message: error.message, param: error.param}
    };
}

function rawText(data: RawData): string {
    if (Array.isArray(data))
        return Buffer.concat(data).toString("utf8");
    return Buffer.from(data as ArrayBuffer).toString("utf8");
}
